import Synchronization

/// Sealing of operators' TOTP secrets.
///
/// Operators belong to no merchant, so their secrets cannot be sealed under a merchant's data key.
/// Each is sealed with XChaCha20-Poly1305 (``RecordCipher``, as card data) under a subkey derived
/// from a KEK version (`crypto_kdf`, context `operator`), the version named in the blob's first 4
/// bytes and, in the associated data, the operator's id and the row's clear facts that decide what
/// it may do (``OperatorRow/binding``: name, role, merchants, status, password hash): a secret
/// copied to another operator's row does not open, nor one whose row was edited in the database to
/// raise its role, widen its merchants, re-enable it or put in a password hash someone knows.
///
/// A master key rotation (``rewrapAll(batchSize:actor:now:)``, key-file and passphrase mode alike)
/// re-seals every secret under the new KEK version before it retires the old ones, so operators
/// sign in unchanged after the old version is dropped. A secret that does not open (its row edited
/// in the database) is left as it is: it stays unusable, and `vault operator reset` re-enrols.
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

    /// Re-seals every operator secret sealed under a KEK version below the current one, under the
    /// current one (part of ``rewrapAll(batchSize:actor:now:)``). A secret that does not open is left.
    /// - Returns: how many were re-sealed.
    func resealOperatorSecrets(in store: any OperatorStore) async throws -> Int {
        let current = currentMasterKeyVersion
        var count = 0
        for row in try await store.operatorRows() {
            guard let version = Self.keyVersion(ofSealedRecord: row.sealedSecret), version < current,
                let secret = try? openOperatorSecret(row.sealedSecret, operatorID: row.account.id, binding: row.binding)
            else { continue }
            let resealed = try sealOperatorSecret(secret, operatorID: row.account.id, binding: row.binding)
            // A row changed since it was read (reset, disabled) already holds a secret sealed under the current version.
            if try await store.resealOperatorSecret(id: row.account.id, old: row.sealedSecret, new: resealed) { count += 1 }
        }
        return count
    }

    private static func operatorAD(_ operatorID: String, _ version: Int, _ binding: [UInt8]) -> [UInt8] {
        Array("vault/operator-totp/\(operatorID)/kek\(version)/".utf8) + binding
    }
}
