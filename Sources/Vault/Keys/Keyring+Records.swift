/// Sealing of merchant records under the merchant's data key.
///
/// A sealed blob is `key version (4 bytes, big-endian) || nonce || ciphertext || tag`, so every
/// record says which data-key version sealed it. The associated data binds the ciphertext to its
/// merchant, record kind, record id and key version: moved to another row, it no longer opens.
extension Keyring {
    /// Seals `plaintext` for one record with the merchant's newest data key.
    /// - Parameters:
    ///   - dataKeyVersion: a specific version (e.g. 1 for a merchant being created); nil for the newest.
    ///   - binding: clear data stored beside the blob that must not change without the blob failing
    ///     to open (a card's expiry and masked number); empty for none.
    public func sealRecord(
        _ plaintext: some Collection<UInt8>, merchantID: String, kind: String, recordID: String, dataKeyVersion: Int? = nil,
        binding: [UInt8] = []
    ) async throws -> [UInt8] {
        let (key, version) = try await key(merchantID: merchantID, purpose: .data, version: dataKeyVersion)
        let sealed = try RecordCipher.seal(
            plaintext, key: key, associatedData: Self.recordAD(merchantID, kind, recordID, version, binding: binding))
        return Self.versionHeader(version) + sealed
    }

    /// Opens a record sealed by `sealRecord`, with the data-key version its header names, into a
    /// brief slot of locked memory: drop the result as soon as it has been read.
    /// - Parameter binding: the clear data the record was sealed with (empty for none).
    /// - Throws: `CryptoError.authenticationFailed` when the blob was tampered with, belongs to
    ///   another record, or its bound clear data changed.
    public func openRecord(_ blob: [UInt8], merchantID: String, kind: String, recordID: String, binding: [UInt8] = []) async throws
        -> SecureBytes
    {
        guard let version = Self.keyVersion(ofSealedRecord: blob) else { throw CryptoError.malformedCiphertext }
        let (key, _) = try await key(merchantID: merchantID, purpose: .data, version: version)
        return try RecordCipher.open(
            blob.dropFirst(4), key: key, associatedData: Self.recordAD(merchantID, kind, recordID, version, binding: binding), lifetime: .brief)
    }

    /// The data-key version a sealed record names, or nil when the blob is too short.
    public static func keyVersion(ofSealedRecord blob: [UInt8]) -> Int? {
        guard blob.count > 4 else { return nil }
        return Int(blob[0]) << 24 | Int(blob[1]) << 16 | Int(blob[2]) << 8 | Int(blob[3])
    }

    /// Seals plaintext that is already in locked memory (re-encryption), without copying it out.
    /// - Parameter dataKeyVersion: a specific version (keeping a record on the version its row names); nil for the newest.
    public func sealRecord(
        _ plaintext: SecureBytes, merchantID: String, kind: String, recordID: String, dataKeyVersion: Int? = nil, binding: [UInt8] = []
    ) async throws -> [UInt8] {
        let (key, version) = try await key(merchantID: merchantID, purpose: .data, version: dataKeyVersion)
        let sealed = try RecordCipher.seal(plaintext, key: key, associatedData: Self.recordAD(merchantID, kind, recordID, version, binding: binding))
        return Self.versionHeader(version) + sealed
    }

    /// The merchant's fingerprint of a card number: keyed BLAKE2b, hex. The same PAN gives the
    /// same fingerprint within a merchant and unrelated ones across merchants.
    public func fingerprint(ofPAN digits: String, merchantID: String) async throws -> String {
        let (key, _) = try await key(merchantID: merchantID, purpose: .fingerprint)
        return Encoding.hex(try KeyedHash.blake2b(Array(digits.utf8), key: key, length: 32))
    }

    /// The 4-byte big-endian version header a sealed record starts with.
    package static func versionHeader(_ version: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: version >> 24), UInt8(truncatingIfNeeded: version >> 16), UInt8(truncatingIfNeeded: version >> 8), UInt8(truncatingIfNeeded: version)]
    }

    /// `vault/record/<merchant>/<kind>/<record id>/v<version>`, then `\n` and the binding when one is given
    /// (record ids and kinds never hold a newline, so the two forms cannot collide).
    private static func recordAD(_ merchantID: String, _ kind: String, _ recordID: String, _ version: Int, binding: [UInt8]) -> [UInt8] {
        var ad = Array("vault/record/\(merchantID)/\(kind)/\(recordID)/v\(version)".utf8)
        if !binding.isEmpty {
            ad.append(0x0A)
            ad.append(contentsOf: binding)
        }
        return ad
    }
}
