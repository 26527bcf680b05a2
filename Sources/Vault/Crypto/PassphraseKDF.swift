internal import CSodium

/// A key from a passphrase with Argon2id (`crypto_pwhash`, `ALG_ARGON2ID13`):
/// the KEK when an operator supplies a passphrase instead of a key file.
public enum PassphraseKDF {
    /// Salt length in bytes (`crypto_pwhash_SALTBYTES`, 16).
    public static let saltLength: Int = crypto_pwhash_saltbytes()
    /// Length of the derived key in bytes (32).
    public static let keyLength = 32

    /// Argon2id work factors: passes over memory and memory in bytes.
    public struct Cost: Sendable, Equatable {
        /// Number of passes (`opslimit`).
        public var opsLimit: UInt64
        /// Memory in bytes (`memlimit`).
        public var memLimit: Int

        /// A cost of `opsLimit` passes over `memLimit` bytes.
        public init(opsLimit: UInt64, memLimit: Int) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// libsodium's "moderate" limits (3 passes, 256 MiB): the default for a KEK.
        public static let moderate = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_moderate()),
            memLimit: crypto_pwhash_argon2id_memlimit_moderate()
        )
        /// libsodium's "interactive" limits (2 passes, 64 MiB).
        public static let interactive = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_interactive()),
            memLimit: crypto_pwhash_argon2id_memlimit_interactive()
        )
        /// The smallest limits libsodium accepts (1 pass, 8 KiB): tests only.
        public static let testing = Cost(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_min()),
            memLimit: crypto_pwhash_argon2id_memlimit_min()
        )
    }

    /// Derives a 32-byte key from `passphrase` and `salt`.
    ///
    /// The same passphrase, salt and cost always give the same key.
    /// - Throws: ``CryptoError/keyDerivationFailed`` when the salt is not
    ///   ``saltLength`` bytes or the cost is outside libsodium's limits;
    ///   ``CryptoError/outOfMemory`` when Argon2id cannot get its memory.
    public static func deriveKey(passphrase: some Collection<UInt8>, salt: [UInt8], cost: Cost = .moderate) throws -> SecureBytes {
        try Sodium.ensureInitialized()
        let opsLimits = UInt64(crypto_pwhash_argon2id_opslimit_min())...UInt64(crypto_pwhash_argon2id_opslimit_max())
        let memLimits = crypto_pwhash_argon2id_memlimit_min()...crypto_pwhash_argon2id_memlimit_max()
        guard salt.count == saltLength, opsLimits.contains(cost.opsLimit), memLimits.contains(cost.memLimit) else {
            throw CryptoError.keyDerivationFailed
        }
        return try SecureBytes(count: keyLength) { key in
            let status = passphrase.withSodiumBytes { passphraseBytes in
                salt.withSodiumBytes { saltBytes in
                    crypto_pwhash(
                        key.sodiumBytes, UInt64(keyLength),
                        passphraseBytes.sodiumChars, UInt64(passphraseBytes.count),
                        saltBytes.sodiumBytes, cost.opsLimit, cost.memLimit,
                        crypto_pwhash_alg_argon2id13()
                    )
                }
            }
            guard status == 0 else { throw CryptoError.outOfMemory }
        }
    }
}
