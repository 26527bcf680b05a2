import Foundation
public import Vault

/// Where the master key-encryption key comes from, in order of precedence:
/// `VAULT_MASTER_KEY`, then `VAULT_MASTER_PASSPHRASE` (Argon2id), then `keys/master.key`.
public enum MasterKeySource: Sendable, Equatable {
    /// Base64 key (or `version:base64,...`) in the environment.
    case environment
    /// Passphrase through Argon2id with the salt file in the keys directory.
    case passphrase(saltPath: String)
    /// The key file, mode 0600.
    case file(path: String)

    /// The source a configuration selects.
    public init(configuration: VaultConfiguration.Keys) {
        if configuration.masterKeyFromEnvironment != nil {
            self = .environment
        } else if configuration.passphraseFromEnvironment != nil {
            self = .passphrase(saltPath: (configuration.directory as NSString).appendingPathComponent(PassphraseSaltFile.defaultFileName))
        } else {
            self = .file(path: (configuration.directory as NSString).appendingPathComponent(MasterKeyFile.defaultFileName))
        }
    }

    /// Operator-facing name of the source (never the key): a file's path is absolute, so a
    /// command run from an unexpected directory shows which file it used or created.
    public var summary: String {
        switch self {
        case .environment: "environment variable VAULT_MASTER_KEY"
        case .passphrase(let saltPath): "passphrase (VAULT_MASTER_PASSPHRASE, Argon2id, salt \(VaultConfiguration.absolute(saltPath)))"
        case .file(let path): "key file \(VaultConfiguration.absolute(path))"
        }
    }

    /// Loads the key ring.
    /// - Throws: `MasterKeyFile.LoadError` (missing file, insecure permissions, malformed) or crypto errors.
    public func load(configuration: VaultConfiguration.Keys) throws -> MasterKeyRing {
        switch self {
        case .environment:
            return try MasterKeyRing.fromEnvironmentValue(configuration.masterKeyFromEnvironment ?? "")
        case .passphrase(let saltPath):
            // A passphrase change that got past its rewrap leaves the new salt beside the old one
            // until it is renamed over it: the vault is then the new passphrase's.
            let pending = Self.pendingSaltPath(besideSaltFile: saltPath)
            guard let salt = try PassphraseSaltFile.load(path: pending) ?? PassphraseSaltFile.load(path: saltPath) else {
                throw MasterKeyFile.LoadError.missing(path: saltPath)
            }
            return try salt.ring(passphrase: configuration.passphraseFromEnvironment ?? "")
        case .file(let path):
            return try MasterKeyFile.load(path: path)
        }
    }

    /// Where a passphrase change keeps the new salt file until its rewrap has committed.
    public static func pendingSaltPath(besideSaltFile saltPath: String) -> String {
        ((saltPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(PassphraseSaltFile.pendingFileName)
    }

    /// Creates the key material if absent: the key file, or the passphrase salt (only for a
    /// passphrase that clears ``PassphraseStrength``).
    /// - Throws: `PassphraseStrength.Weakness` for a weak passphrase; file errors.
    /// - Returns: true when something was created; false when it already existed (nothing changes).
    public func initialize(configuration: VaultConfiguration.Keys) throws -> Bool {
        try FileManager.default.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        switch self {
        case .environment:
            return false
        case .passphrase(let saltPath):
            if FileManager.default.fileExists(atPath: saltPath) { return false }
            // A new deployment starts above the floor; one already running is warned at start.
            if let weakness = PassphraseStrength.weakness(of: configuration.passphraseFromEnvironment ?? "") { throw weakness }
            try PassphraseSaltFile.fresh(kekVersion: 1).write(to: saltPath)
            return true
        case .file(let path):
            return try MasterKeyFile.createIfAbsent(path: path)
        }
    }
}
