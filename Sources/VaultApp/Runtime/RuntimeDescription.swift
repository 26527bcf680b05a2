public import Logging
import VaultAPI

/// What a process runs with, logged at start by every command and shown by `vault status`: the
/// configuration file, database, master key source, migration level and log level. Never a
/// secret: the PostgreSQL URL is shown without its password, the key source by name.
public struct RuntimeDescription: Sendable, Equatable, Codable {
    /// The build's version (`vault --version`).
    public var version: String
    /// The configuration file (absolute path), or "built-in defaults" when none was read.
    public var configuration: String
    /// The database: `SQLite <absolute path>` or `PostgreSQL <url without password>`.
    public var database: String
    /// Where the master key comes from (a key file by absolute path).
    public var keySource: String
    /// The highest migration applied to the database (0: none).
    public var migration: Int
    /// The lowest log level written.
    public var logLevel: String

    /// The description of `configuration` before its database is opened (migration 0).
    public init(configuration: VaultConfiguration, keySource: MasterKeySource, migration: Int = 0) {
        self.version = VaultVersion.current
        self.configuration = configuration.fileSummary
        self.database = configuration.database.summary
        self.keySource = keySource.summary
        self.migration = migration
        self.logLevel = configuration.logging.level.rawValue
    }

    /// The fields as log metadata.
    public var metadata: Logger.Metadata {
        [
            "version": "\(version)", "configuration": "\(configuration)", "database": "\(database)", "keySource": "\(keySource)",
            "migration": "\(migration)", "logLevel": "\(logLevel)",
        ]
    }

    /// One `name: value` line per field, for a terminal.
    public var lines: [String] {
        [
            "version:        \(version)", "configuration:  \(configuration)", "database:       \(database)", "key source:     \(keySource)",
            "migration:      \(migration)", "log level:      \(logLevel)",
        ]
    }
}

extension VaultConfiguration {
    /// The configuration file read (absolute path), or what applies when none was.
    public var fileSummary: String {
        file.map(Self.absolute) ?? "built-in defaults (no --config, no VAULT_CONFIG, no \(Self.defaultPath) in the working directory)"
    }
}
