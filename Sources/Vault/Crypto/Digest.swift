internal import CSodium

/// Unkeyed SHA-256 and HMAC-SHA256, both from libsodium.
public enum Digest {
    /// SHA-256 (`crypto_hash_sha256`): the audit hash chain, API-key hashes.
    /// - Returns: 32 bytes.
    public static func sha256(_ message: some Collection<UInt8>) -> [UInt8] {
        Sodium.ensureInitializedOrTrap()
        return message.withSodiumBytes { input in
            [UInt8](unsafeUninitializedCapacity: crypto_hash_sha256_bytes()) { output, initializedCount in
                _ = crypto_hash_sha256(output.baseAddress!, input.sodiumBytes, UInt64(input.count))
                initializedCount = output.count
            }
        }
    }

    /// HMAC-SHA256 with a key of any length (`crypto_auth_hmacsha256_init`/
    /// `update`/`final`, RFC 2104): webhook signatures.
    /// - Returns: 32 bytes.
    public static func hmacSHA256(_ message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        Sodium.ensureInitializedOrTrap()
        return key.withSodiumBytes { keyBytes in
            message.withSodiumBytes { input in
                [UInt8](unsafeUninitializedCapacity: crypto_auth_hmacsha256_bytes()) { output, initializedCount in
                    var state = crypto_auth_hmacsha256_state()
                    _ = crypto_auth_hmacsha256_init(&state, keyBytes.sodiumBytes, keyBytes.count)
                    _ = crypto_auth_hmacsha256_update(&state, input.sodiumBytes, UInt64(input.count))
                    _ = crypto_auth_hmacsha256_final(&state, output.baseAddress!)
                    sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
                    initializedCount = output.count
                }
            }
        }
    }
}

/// Compares two byte strings in constant time (`sodium_memcmp`): for MACs,
/// signatures and hashed API keys, where an early exit would leak how many
/// leading bytes matched. Different lengths compare unequal.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    Sodium.ensureInitializedOrTrap()
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            sodium_memcmp(left.baseAddress!, right.baseAddress!, a.count) == 0
        }
    }
}
