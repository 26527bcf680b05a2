import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import NIOCore
import Scheduler
import StorageTestSupport
import Synchronization
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultPostgres
import VaultSQLite

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "vault-api-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A vault with two merchants (A with admin, readonly and runner keys; B with an admin key),
/// served by the real router, with every log line captured.
struct APIFixture {
    let directory = TemporaryDirectory()
    /// The fixture's PostgreSQL database in the PostgreSQL pass (nil on SQLite), dropped when the fixture goes.
    let postgres: FixtureDatabase?
    let runtime: VaultRuntime
    let logs = InMemoryLogHandler()
    /// The mail program receipts are piped to (`receipts.sendmailCommand`), keeping each message.
    let sendmail: FakeSendmail
    let merchantA: Merchant
    let merchantB: Merchant
    let adminA: String
    let readonlyA: String
    let runnerA: String
    let adminB: String

    var logger: Logger {
        let handler = logs
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .trace
        return logger
    }

    init(configure: (inout VaultConfiguration) -> Void = { _ in }) async throws {
        var configuration = VaultConfiguration()
        configuration.database.path = directory.file("vault.sqlite")
        let postgres = try await FixtureDatabase.forCurrentEngine()
        self.postgres = postgres
        configuration.database.url = postgres?.url
        configuration.database.maxConnections = 8
        configuration.keys.directory = directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = Encoding.base64(RandomBytes.make(32))
        configuration.server.port = 0
        configuration.metrics.port = 0
        // A test's client keeps its connection while the test works the store directly (a
        // reconciliation, SQL as an insider); on a loaded machine that took longer than the
        // 10 s default and the server closed the idle connection under the next request. Tests of
        // the idle timeout set their own.
        configuration.server.idleTimeoutSeconds = 300
        // Receipts go to a fake mail program in the fixture's directory, so a request asking for an
        // e-mail receipt is taken (without a usable program it is refused, as tests of that say).
        sendmail = try FakeSendmail(in: directory.path)
        configuration.receipts.sendmailCommand = sendmail.command
        configuration.receipts.from = "receipts@vault.example"
        // The server's background round runs at start and then once an hour: a test delivers receipts
        // itself when it wants them sent, and never races a round for them.
        configuration.receipts.pollSeconds = 3600
        configure(&configuration)
        let handler = logs
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .trace
        // The gateways' lines are captured with the rest (scanned for card data, never printed).
        var gatewayLogger = Logger(label: "vault.gateways", factory: { _ in handler })
        gatewayLogger.logLevel = .trace
        runtime = try await VaultRuntime.open(configuration: configuration, logger: logger, gatewayLogger: gatewayLogger, database: .createIfMissing)
        postgres?.closeOnDrop(runtime.store)
        let (a, adminA) = try await runtime.merchants.create(name: "merchant-a", role: .admin, settings: .init(), actor: "test")
        let (b, adminB) = try await runtime.merchants.create(name: "merchant-b", role: .admin, settings: .init(), actor: "test")
        merchantA = a
        merchantB = b
        self.adminA = adminA.bearer
        self.adminB = adminB.bearer
        readonlyA = try await runtime.merchants.issueKey(merchantName: "merchant-a", role: .readonly, actor: "test").bearer
        runnerA = try await runtime.merchants.issueKey(merchantName: "merchant-a", role: .runner, actor: "test").bearer
    }

    /// Runs `body` against the application on a real port.
    func live(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try buildApplication(runtime: runtime, logger: logger)
        try await app.test(.live, body)
    }

    /// Every captured log line with its metadata, as text.
    var logText: String {
        logs.entries.map { entry in "\(entry.level) \(entry.message) \(entry.metadata)" }.joined(separator: "\n")
    }

    /// Row count of a table (with an optional `WHERE ...` after its name).
    func count(_ table: String) async throws -> Int {
        try await runtime.sql.count("SELECT count(*) AS n FROM \(unescaped: table)")
    }

    /// Plain SQL against the fixture's database, on either engine.
    var sql: TestSQL { runtime.sql }
}

extension TestClientProtocol {
    /// Sends JSON (or raw bytes) with a bearer key.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, key: String?, json: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let key { headers[.authorization] = "Bearer \(key)" }
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { $0 }
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// The error envelope's detail.
    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }

    /// The body as text.
    var text: String { String(buffer: body) }
}

/// A keyed-card registration body.
func keyedCard(_ reference: String, number: String = "4242424242424242", cvv: String? = "123", verify: Bool? = nil, extra: String = "") -> String {
    let cvvField = cvv.map { ", \"cvv\": \"\($0)\"" } ?? ""
    let verifyField = verify.map { ", \"verify\": \($0)" } ?? ""
    return """
        {"merchantReference": "\(reference)", "method": "keyed",
         "card": {"number": "\(number)", "expiryDate": "1230", "holderName": "Ada Lovelace"\(cvvField)}\(verifyField)\(extra)}
        """
}

extension VaultRuntime {
    /// Plain SQL against the runtime's database (SQLite or PostgreSQL), for tests that read or edit rows.
    var sql: TestSQL { TestSQL(store) }
}

/// A fresh PostgreSQL database for one fixture in the PostgreSQL pass (`VAULT_TEST_ENGINE=postgres`):
/// the stores opened on it are closed and the database dropped when the last fixture copy goes.
final class FixtureDatabase: Sendable {
    /// The database's URL (`database.url` of the fixture's configuration).
    let url: PostgresURL
    private let stores = Mutex<[any VaultStorage]>([])

    init(url: PostgresURL) {
        self.url = url
    }

    /// The URL as text, password included (`VAULT_DATABASE_URL` of a `vault` process).
    var urlText: String {
        guard let password = url.password else { return url.description }
        let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
        return url.description.replacingOccurrences(of: ":***@", with: ":\(encoded)@")
    }

    /// A new database on the PostgreSQL pass (migrated; `empty`: no tables at all, as a new
    /// database before `vault migrate`); nil on the SQLite pass. Waits while
    /// `PostgresTestSlots.limit` databases are alive: every test starts at once, and their pools
    /// together would pass the cluster's `max_connections`.
    static func forCurrentEngine(empty: Bool = false) async throws -> FixtureDatabase? {
        guard TestEngine.current == .postgres else { return nil }
        await PostgresTestSlots.shared.acquire()
        do {
            return FixtureDatabase(url: try await PostgresTestDatabase.newDatabase(empty: empty))
        } catch {
            PostgresTestSlots.shared.release()
            throw error
        }
    }

    /// Closes `store` before the database is dropped.
    func closeOnDrop(_ store: any VaultStorage) {
        stores.withLock { $0.append(store) }
    }

    deinit {
        for store in stores.withLock({ $0 }) { store.close() }
        let url = url
        Task.detached {
            await PostgresTestDatabase.drop(url)
            PostgresTestSlots.shared.release()
        }
    }
}

/// Queues webhook events in one transaction on either engine, as the services do beside their
/// changes; their ids, in order.
@discardableResult
func enqueueWebhooks(_ store: any VaultStorage, _ events: [(WebhookEventType, merchantID: String, data: [String: WebhookValue])]) async throws -> [String] {
    switch store {
    case let sqlite as SQLiteStore:
        return try await sqlite.database.write { connection in
            try events.map { try connection.enqueueWebhook($0.0, merchantID: $0.merchantID, data: $0.data) }
        }
    case let postgres as PostgresStore:
        return try await postgres.write { write in
            var ids: [String] = []
            for event in events { ids.append(try await write.enqueueWebhook(event.0, merchantID: event.merchantID, data: event.data)) }
            return ids
        }
    default:
        throw UnknownStorage()
    }
}

/// A store of neither engine.
struct UnknownStorage: Error {}
