internal import CSodium

/// Random bytes from libsodium's CSPRNG (`randombytes_buf`): nonces, salts,
/// tokens. Never for key material that should stay in locked memory; use
/// ``SecureBytes/random(count:)`` for that.
public enum RandomBytes {
    /// `count` random bytes.
    public static func make(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "random byte count must not be negative")
        Sodium.ensureInitializedOrTrap()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            if let base = buffer.baseAddress { randombytes_buf(base, count) }
            initializedCount = count
        }
    }
}
