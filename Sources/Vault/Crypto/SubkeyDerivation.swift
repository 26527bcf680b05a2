internal import CSodium

/// Subkeys derived from one master key with `crypto_kdf` (BLAKE2b):
/// per-merchant fingerprint keys and the like.
///
/// The same master, id and context always give the same subkey; changing
/// either gives an unrelated one. Knowing subkeys reveals nothing of the
/// master or of the other subkeys.
public enum SubkeyDerivation {
    /// Length of the master key in bytes (`crypto_kdf_KEYBYTES`, 32).
    public static let masterKeyLength: Int = crypto_kdf_keybytes()
    /// Length of a context in bytes (`crypto_kdf_CONTEXTBYTES`, 8).
    public static let contextLength: Int = crypto_kdf_contextbytes()
    /// Allowed subkey lengths (`crypto_kdf_BYTES_MIN...crypto_kdf_BYTES_MAX`, 16...64).
    public static let subkeyLengths: ClosedRange<Int> = crypto_kdf_bytes_min()...crypto_kdf_bytes_max()

    /// Derives subkey `id` of `context` from `master`.
    /// - Parameters:
    ///   - master: a 32-byte master key.
    ///   - id: which subkey (for example a merchant's numeric id).
    ///   - context: exactly 8 UTF-8 bytes naming the purpose, e.g. `"cardfpv1"`.
    ///   - length: subkey length in bytes, 16...64.
    /// - Returns: the subkey, in locked memory.
    /// - Throws: ``CryptoError/invalidKeyLength(expected:actual:)`` for a
    ///   master of the wrong length; ``CryptoError/keyDerivationFailed`` for a
    ///   context that is not 8 bytes or a length out of range.
    public static func derive(from master: SecureBytes, id: UInt64, context: String, length: Int = 32) throws -> SecureBytes {
        try Sodium.ensureInitialized()
        guard master.count == masterKeyLength else {
            throw CryptoError.invalidKeyLength(expected: masterKeyLength, actual: master.count)
        }
        guard context.utf8.count == contextLength, subkeyLengths.contains(length) else {
            throw CryptoError.keyDerivationFailed
        }
        return try SecureBytes(count: length) { subkey in
            let status = master.withUnsafeBytes { masterBytes in
                context.withCString { contextChars in
                    crypto_kdf_derive_from_key(subkey.sodiumBytes, length, id, contextChars, masterBytes.sodiumBytes)
                }
            }
            guard status == 0 else { throw CryptoError.keyDerivationFailed }
        }
    }
}
