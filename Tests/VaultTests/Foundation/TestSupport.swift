import Foundation
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultPostgres
@testable import VaultSQLite
import Scheduler

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "vault-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A migrated store on the run's engine (`TestEngine.current`), a key ring over it and a merchant
/// service; the SQLite file goes in a temporary directory.
struct VaultFixture {
    let directory = TemporaryDirectory()
    let database: TestDatabase
    let store: any VaultStorage & KeyGenerationStore
    let ring: MasterKeyRing
    let keyring: Keyring
    let merchants: MerchantService

    /// - Parameter clock: the keyring's clock (when it reads the key generation), moved by the test; the real one when nil.
    init(ring: MasterKeyRing? = nil, clock: ManualInstantClock? = nil) async throws {
        database = try await TestDatabase(path: directory.file("vault.sqlite"))
        store = try #require(database.storage as? any VaultStorage & KeyGenerationStore)
        self.ring = try ring ?? MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        let ring = self.ring
        let store = self.store
        keyring = clock.map { Keyring(masterKeys: ring, store: store, clock: $0.reading) } ?? Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: TestGateways.rules)
    }

    /// Plain SQL against the fixture's database, on either engine.
    var sql: TestSQL { database.sql }

    /// The engine of the fixture's database.
    var engine: TestEngine { database.engine }

    /// Reopens the same database with another key ring.
    func reopened(with ring: MasterKeyRing) -> Keyring {
        Keyring(masterKeys: ring, store: store)
    }

    /// Another store over the same database, as a second server opens it; close it with `TestDatabase.close`.
    func openAnother() async throws -> any VaultStorage & KeyGenerationStore {
        try #require(try await database.openAnother() as? any VaultStorage & KeyGenerationStore)
    }

    /// Whether `text` is stored in clear anywhere: SQLite: the database file (after closing the store
    /// when `closingFirst`, so the WAL is folded in); PostgreSQL: every row of every table as text.
    func storedDataContains(_ text: String, closingFirst: Bool = false) async throws -> Bool {
        switch engine {
        case .sqlite:
            if closingFirst { store.close() }
            let file = try Data(contentsOf: URL(fileURLWithPath: directory.file("vault.sqlite")))
            return file.range(of: Data(text.utf8)) != nil
        case .postgres:
            return try await sql.everyRowAsText().contains(text)
        }
    }

    /// Waits until the audit events of card-data reads recorded so far are committed (SQLite: they
    /// ride the next write; PostgreSQL: the store's flush task writes them).
    func settleReadAudits() async throws {
        switch database.storage {
        case let store as SQLiteStore:
            try await store.database.write { _ in }
        case let store as PostgresStore:
            while !store.readAudits.isIdle { try await Task.sleep(for: .milliseconds(1)) }
        default:
            break
        }
    }
}
