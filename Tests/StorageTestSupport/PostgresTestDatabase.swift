import Foundation
public import Logging
public import PostgresNIO
public import Testing
public import Vault
public import VaultPostgres

/// Fresh PostgreSQL databases for tests, copied from one migrated template per test process.
///
/// `VAULT_TEST_DATABASE_URL` names a server and a role that may CREATE DATABASE (`make test` starts
/// a throwaway cluster and sets it). Without it the PostgreSQL tests fail, saying so, unless
/// `VAULT_TEST_POSTGRES=off` disables them (the `.postgres` trait): a run that skips PostgreSQL is
/// always a deliberate one.
public enum PostgresTestDatabase {
    /// Whether PostgreSQL tests are switched off (`VAULT_TEST_POSTGRES=off`).
    public static let isDisabled = ProcessInfo.processInfo.environment["VAULT_TEST_POSTGRES"] == "off"

    /// A logger that drops everything (passing runs stay quiet).
    public static let logger = Logger(label: "vault.test.postgres") { _ in SwiftLogNoOpLogHandler() }

    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            "VAULT_TEST_DATABASE_URL is not set: run the tests through `make test` (it starts a throwaway PostgreSQL cluster), "
                + "or set VAULT_TEST_POSTGRES=off to run the rest of the suite without PostgreSQL"
        }
    }

    /// The server named by `VAULT_TEST_DATABASE_URL`.
    public static func serverURL() throws -> PostgresURL {
        guard let text = ProcessInfo.processInfo.environment["VAULT_TEST_DATABASE_URL"], !text.isEmpty else { throw NotConfigured() }
        return try PostgresURL(text)
    }

    /// A new database migrated to the current schema (a copy of the process's template; `empty`: no
    /// tables at all), given to `body` by URL and dropped afterwards.
    public static func withDatabase<T>(empty: Bool = false, _ body: (PostgresURL) async throws -> T) async throws -> T {
        let url = try await newDatabase(empty: empty)
        do {
            let result = try await body(url)
            await drop(url)
            return result
        } catch {
            await drop(url)
            throw error
        }
    }

    /// A new database migrated to the current schema (`empty`: no tables at all); the caller drops it.
    public static func newDatabase(empty: Bool = false) async throws -> PostgresURL {
        let server = try serverURL()
        let name = "vault_test_\(ProcessInfo.processInfo.processIdentifier)_\(UUID().uuidString.prefix(8).lowercased())"
        if empty {
            try await createDatabase(name, server: server)
        } else {
            let template = try await Template.shared.name(server: server)
            try await createCopy(name, of: template, server: server)
        }
        var url = server
        url.database = name
        // Hundreds of tests run at once, each with its own pool: a few connections each keep the
        // throwaway cluster under its max_connections.
        url.maximumConnections = min(url.maximumConnections, 4)
        return url
    }

    /// Drops a database made by `newDatabase`, ending its sessions (best effort: the cluster is
    /// thrown away after the run anyway).
    public static func drop(_ url: PostgresURL) async {
        let name = url.database
        guard let server = try? serverURL(), name.hasPrefix("vault_test_") else { return }
        try? await admin(server) { "DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)" }
    }

    /// A store over a fresh database, with a keyring (one random master key) opened over it.
    public static func withStore<T>(_ body: (PostgresStore, Keyring) async throws -> T) async throws -> T {
        try await withDatabase { url in
            let store = try await PostgresStore(url: url, logger: logger)
            defer { store.close() }
            let keyring = try await openKeyring(over: store, masterKey: try SecureBytes.random(count: 32))
            return try await body(store, keyring)
        }
    }

    /// A keyring over `store` holding `masterKey` as version 1, verified (registers it, creates the audit key).
    public static func openKeyring(over store: PostgresStore, masterKey: SecureBytes) async throws -> Keyring {
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: masterKey]), store: store)
        try await keyring.verifyMasterKey()
        return keyring
    }

    private static func createCopy(_ name: String, of template: String, server: PostgresURL) async throws {
        try await createDatabase(name, template: template, server: server)
    }

    /// Creates database `name` as a copy of `template` (the server's `template1` when nil). A copy
    /// fails while another session uses its template ("source database is being accessed by other
    /// users"), which a database created at the same moment by another test does for a few
    /// milliseconds: it is tried again for up to six seconds.
    public static func createDatabase(_ name: String, template: String? = nil, server: PostgresURL) async throws {
        var attempt = 0
        while true {
            do {
                try await admin(server) {
                    template.map { "CREATE DATABASE \(unescaped: name) TEMPLATE \(unescaped: $0)" } ?? "CREATE DATABASE \(unescaped: name)"
                }
                return
            } catch {
                attempt += 1
                guard attempt < 300 else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Runs one statement on the server's own database (CREATE/DROP DATABASE run outside transactions).
    public static func admin(_ server: PostgresURL, _ statement: () -> PostgresQuery) async throws {
        let host = server.hosts[0]
        let connection = try await PostgresConnection.connect(
            configuration: try server.connectionConfiguration(host: host, connectTimeout: .seconds(10)), id: 1, logger: logger)
        do {
            _ = try await connection.run(statement(), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The migrated template of this process, created at first use.
    actor Template {
        static let shared = Template()
        private var created: Task<String, any Error>?

        func name(server: PostgresURL) async throws -> String {
            if let created { return try await created.value }
            let task = Task {
                let name = "vault_template_\(ProcessInfo.processInfo.processIdentifier)_\(UUID().uuidString.prefix(8).lowercased())"
                try await PostgresTestDatabase.createDatabase(name, server: server)
                var url = server
                url.database = name
                let store = try await PostgresStore(url: url, logger: PostgresTestDatabase.logger)
                store.close()
                // Copies need the template without sessions: end the migrating pool's at once.
                try await PostgresTestDatabase.admin(server) {
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = \(name) AND pid <> pg_backend_pid() AND usename = current_user AND backend_type = 'client backend'
                    """
                }
                // No session (autovacuum's included, which a non-superuser cannot end) may sit on
                // the template while it is copied.
                try await PostgresTestDatabase.admin(server) { "ALTER DATABASE \(unescaped: name) WITH ALLOW_CONNECTIONS false" }
                return name
            }
            created = task
            return try await task.value
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test unless `VAULT_TEST_POSTGRES=off`; without `VAULT_TEST_DATABASE_URL` it fails, saying how to run it.
    public static var postgres: Self {
        .enabled(if: !PostgresTestDatabase.isDisabled, "PostgreSQL tests are off (VAULT_TEST_POSTGRES=off)")
    }
}
