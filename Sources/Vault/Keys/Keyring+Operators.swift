import Synchronization

/// Sealing of operators' TOTP secrets.
///
/// Operators belong to no merchant, so their secrets cannot be sealed under a merchant's data key.
/// Each is sealed with XChaCha20-Poly1305 (``RecordCipher``, as card data) under a subkey derived
/// from a KEK version (`crypto_kdf`, context `operator`), the version named in the blob's first 4
/// bytes and, in the associated data, the operator's id and the row's clear facts that decide what
/// it may do (``OperatorRow/binding``: name, role, merchants, status, password hash): a secret
/// copied to another operator's row does not open, nor one whose row was edited in the database to
/// raise its role, widen its merchants, re-enable it or put in a password hash someone knows. A secret sealed under a KEK version the process no longer holds does not open
/// either: after a master key rotation retires a version, operators re-enrol
/// (`vault operator reset`).
extension Keyring {
    /// Seals a TOTP secret for `operatorID` under the current KEK version.
    /// - Parameter binding: the row's bound facts (``OperatorRow/binding``).
    public func sealOperatorSecret(_ secret: [UInt8], operatorID: String, binding: [UInt8]) throws -> [UInt8] {
        let (version, kek) = masterKeys.ring.withLock { ($0.currentVersion, $0.current) }
        let key = try SubkeyDerivation.derive(from: kek, id: 2, context: "operator")
        return Self.versionHeader(version) + (try RecordCipher.seal(secret, key: key, associatedData: Self.operatorAD(operatorID, version, binding)))
    }

    /// Opens a secret sealed by ``sealOperatorSecret(_:operatorID:binding:)`` with the same binding.
    /// - Throws: `KeyringError.missingMasterKeyVersion` when its KEK version is not held,
    ///   `CryptoError.authenticationFailed` when it was altered or belongs to another operator.
    public func openOperatorSecret(_ sealed: [UInt8], operatorID: String, binding: [UInt8]) throws -> [UInt8] {
        guard let version = Self.keyVersion(ofSealedRecord: sealed) else { throw CryptoError.malformedCiphertext }
        guard let kek = masterKeys.key(version: version) else { throw KeyringError.missingMasterKeyVersion(version) }
        let key = try SubkeyDerivation.derive(from: kek, id: 2, context: "operator")
        return try RecordCipher.open(sealed.dropFirst(4), key: key, associatedData: Self.operatorAD(operatorID, version, binding), lifetime: .brief)
            .copyToArray()
    }

    private static func operatorAD(_ operatorID: String, _ version: Int, _ binding: [UInt8]) -> [UInt8] {
        Array("vault/operator-totp/\(operatorID)/kek\(version)/".utf8) + binding
    }
}
