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

    /// A uniformly distributed random number in `0..<upperBound`
    /// (`randombytes_uniform`, no modulo bias): retry jitter and the like.
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        Sodium.ensureInitializedOrTrap()
        return randombytes_uniform(upperBound)
    }
}
