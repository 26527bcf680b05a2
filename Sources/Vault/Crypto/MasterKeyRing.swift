/// The versions of the master key-encryption key (KEK) held in memory.
///
/// The highest version is current: new data keys are wrapped with it, while
/// older versions stay to unwrap what they wrapped until rotation has
/// rewrapped everything.
public struct MasterKeyRing: Sendable, CustomStringConvertible {
    /// Length of every KEK in bytes (32).
    public static let keyLength = 32

    private let keys: [Int: SecureBytes]

    /// The highest version, used for new wrapping.
    public let currentVersion: Int

    /// A ring of the given versions.
    /// - Throws: ``MasterKeyRingError/noKeys``, ``MasterKeyRingError/invalidVersion(_:)``
    ///   for a version below 1, ``CryptoError/invalidKeyLength(expected:actual:)``
    ///   for a key that is not 32 bytes.
    public init(keys: [Int: SecureBytes]) throws {
        guard let highest = keys.keys.max() else { throw MasterKeyRingError.noKeys }
        if let lowest = keys.keys.min(), lowest < 1 { throw MasterKeyRingError.invalidVersion(lowest) }
        for version in keys.keys.sorted() {
            let length = keys[version]!.count
            guard length == Self.keyLength else {
                throw CryptoError.invalidKeyLength(expected: Self.keyLength, actual: length)
            }
        }
        self.init(validated: keys, currentVersion: highest)
    }

    private init(validated keys: [Int: SecureBytes], currentVersion: Int) {
        self.keys = keys
        self.currentVersion = currentVersion
    }

    /// All versions, ascending.
    public var versions: [Int] { keys.keys.sorted() }

    /// The key of `version`, or `nil` when the ring does not hold it.
    public func key(version: Int) -> SecureBytes? { keys[version] }

    /// The current key (version ``currentVersion``).
    public var current: SecureBytes { keys[currentVersion]! }

    /// A copy with a fresh random key as version `currentVersion + 1`.
    /// - Throws: ``CryptoError/outOfMemory``.
    public func addingNewVersion() throws -> MasterKeyRing {
        var keys = keys
        keys[currentVersion + 1] = try SecureBytes.random(count: Self.keyLength)
        return try MasterKeyRing(keys: keys)
    }

    /// A copy without the versions below `versionsBelow`, once nothing is
    /// wrapped with them any more. The current version is always kept.
    public func removing(versionsBelow: Int) -> MasterKeyRing {
        let kept = keys.filter { $0.key >= versionsBelow || $0.key == currentVersion }
        return MasterKeyRing(validated: kept, currentVersion: currentVersion)
    }

    /// From a passphrase through Argon2id with `salt`, as version 1.
    /// - Throws: ``MasterKeyRingError/emptyPassphrase``; what
    ///   ``PassphraseKDF/deriveKey(passphrase:salt:cost:)`` throws.
    public static func fromPassphrase(_ passphrase: String, salt: [UInt8], cost: PassphraseKDF.Cost = .moderate) throws -> MasterKeyRing {
        guard !passphrase.isEmpty else { throw MasterKeyRingError.emptyPassphrase }
        let key = try PassphraseKDF.deriveKey(passphrase: passphrase.utf8, salt: salt, cost: cost)
        return try MasterKeyRing(keys: [1: key])
    }

    /// `MasterKeyRing(versions: [1, 2], current: 2)`: versions only, never keys.
    public var description: String {
        "MasterKeyRing(versions: \(versions), current: \(currentVersion))"
    }
}
