internal import CSodium

/// Keyed BLAKE2b (`crypto_generichash`): card fingerprints.
///
/// Keyed with a per-merchant key, the same PAN gives the same fingerprint
/// within a merchant and unrelated ones across merchants, and nobody without
/// the key can test a guessed PAN against a fingerprint.
public enum KeyedHash {
    /// Allowed key lengths in bytes (16...64).
    public static let keyLengths: ClosedRange<Int> = crypto_generichash_keybytes_min()...crypto_generichash_keybytes_max()
    /// Allowed output lengths in bytes (16...64).
    public static let outputLengths: ClosedRange<Int> = crypto_generichash_bytes_min()...crypto_generichash_bytes_max()

    /// The keyed BLAKE2b hash of `message`.
    /// - Parameters:
    ///   - key: 16 to 64 bytes (32 recommended).
    ///   - length: output length in bytes, 16...64; anything else is a
    ///     programming error and traps.
    /// - Throws: ``CryptoError/invalidKeyLength(expected:actual:)`` when the
    ///   key is outside 16...64 bytes.
    public static func blake2b(_ message: some Collection<UInt8>, key: SecureBytes, length: Int = 32) throws -> [UInt8] {
        try Sodium.ensureInitialized()
        precondition(outputLengths.contains(length), "BLAKE2b output length must be 16...64 bytes")
        guard keyLengths.contains(key.count) else {
            throw CryptoError.invalidKeyLength(expected: crypto_generichash_keybytes(), actual: key.count)
        }
        return message.withSodiumBytes { input in
            key.withUnsafeBytes { keyBytes in
                [UInt8](unsafeUninitializedCapacity: length) { output, initializedCount in
                    _ = crypto_generichash(
                        output.baseAddress!, length,
                        input.sodiumBytes, UInt64(input.count),
                        keyBytes.sodiumBytes, keyBytes.count
                    )
                    initializedCount = length
                }
            }
        }
    }
}
