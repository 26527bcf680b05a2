import Foundation
import Hummingbird
import Logging
import NIOCore
import Payments
@testable import Scheduler
import ServiceLifecycle
import StorageTestSupport
import Synchronization
import Testing
import Vault
import VaultPostgres
@testable import VaultSQLite

/// One delivery a test receiver got.
struct ReceivedWebhook: Sendable {
    var headers: [String: String]
    var body: [UInt8]

    var eventID: String? { headers["vault-event-id"] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A merchant's webhook endpoint on 127.0.0.1 (port chosen by the system) that records each
/// request and answers with queued statuses (200 once the queue is empty), or holds the answer.
final class WebhookReceiver: Sendable {
    private struct State {
        var received: [ReceivedWebhook] = []
        var statuses: [Int] = []
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let server = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let boundPort = Mutex(0)

    /// `http://127.0.0.1:PORT/hooks`.
    var url: String { "http://127.0.0.1:\(boundPort.withLock { $0 })/hooks" }

    /// Every request received, in order.
    var received: [ReceivedWebhook] { state.withLock { $0.received } }

    /// The distinct event ids received: what a receiver that deduplicates keeps.
    var distinctEventIDs: Set<String> { Set(received.compactMap(\.eventID)) }

    /// Answers the next requests with these statuses, in order.
    func answer(_ statuses: Int...) { state.withLock { $0.statuses += statuses } }

    /// Holds every answer until ``release()``.
    func holdAnswers() { state.withLock { $0.holding = true } }

    /// Lets held answers go.
    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Starts listening and returns once the port is known.
    func start() async throws {
        let router = Router()
        router.post("hooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            if let authority = request.head.authority { headers["host"] = authority }
            let status = await self.record(ReceivedWebhook(headers: headers, body: Array(body.readableBytesView)))
            return Response(status: HTTPResponse.Status(code: status))
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                continuation.finish()
                throw error
            }
        }
        server.withLock { $0 = (group, task) }
        for await port in ports { boundPort.withLock { $0 = port } }
    }

    /// Stops listening gracefully (releasing held answers first); idempotent.
    func stop() async {
        release()
        let server = server.withLock { server in
            defer { server = nil }
            return server
        }
        guard let (group, task) = server else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    private func record(_ webhook: ReceivedWebhook) async -> Int {
        let (status, hold) = state.withLock { state -> (Int, Bool) in
            state.received.append(webhook)
            let status = state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
            return (status, state.holding)
        }
        if hold {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.holding else { return true }
                    state.held.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return status
    }
}

/// Log lines captured for inspection.
final class WebhookLogs: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var logger: Logger {
        var logger = Logger(label: "webhooks-test") { _ in WebhookLogHandler(logs: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct WebhookLogHandler: LogHandler {
    let logs: WebhookLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        logs.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
    }
}

/// A vault with a merchant whose callback URL is a test receiver, and a deliverer over them, on
/// the engine of the run (`TestEngine.current`).
struct WebhookDeliveryFixture {
    let path = NSTemporaryDirectory() + "webhook-tests-" + UUID().uuidString
    let ring: MasterKeyRing
    let database: TestDatabase
    let store: any VaultStorage
    let keyring: Keyring
    let merchants: MerchantService
    let merchant: Merchant
    let receiver = WebhookReceiver()
    let logs = WebhookLogs()

    /// 2027-01-10 12:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_799_582_400)

    init(callback: Bool = true) async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try await receiver.start()
        ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        database = try await TestDatabase(path: path + "/vault.sqlite")
        store = database.storage
        keyring = Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        // The receiver listens on 127.0.0.1: a private target, allowed as an operator would allow it.
        merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules, allowPrivateCallbackTargets: true)
        merchant = try await merchants.create(
            name: "acme", role: .admin, settings: MerchantSettings(callbackURL: callback ? receiver.url : nil), actor: "test").merchant
    }

    /// A deliverer with 30 s initial backoff, 1 h maximum and no jitter.
    func deliverer(
        store: (any VaultStorage)? = nil, keyring: Keyring? = nil, batchSize: Int = 100, concurrency: Int = 8, timeout: Duration = .seconds(10),
        transport: any WebhookTransport = HTTPWebhookTransport(allowPrivateTargets: true)
    ) -> WebhookDeliverer {
        let store = store ?? self.store
        return WebhookDeliverer(
            store: store, merchants: store, keyring: keyring ?? self.keyring, transport: transport,
            settings: WebhookDeliverySettings(
                timeout: timeout, initialBackoff: 30, maxBackoff: 3600, batchSize: batchSize, concurrency: concurrency, jitter: 0.1),
            logger: logs.logger, random: { 0 })
    }

    /// Queues an event as an outcome's transaction would.
    @discardableResult
    func enqueue(
        _ type: WebhookEventType = .transactionApproved, data: [String: WebhookValue] = ["transactionId": "txn_1", "amount": 1250],
        at now: Date = Self.now, retention: TimeInterval = 72 * 3600
    ) async throws -> String {
        let merchantID = merchant.id
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.database.write { connection in
                try connection.enqueueWebhook(type, merchantID: merchantID, data: data, now: now, retention: retention)
            }
        case let postgres as PostgresStore:
            return try await postgres.write { write in
                try await write.enqueueWebhook(type, merchantID: merchantID, data: data, now: now, retention: retention)
            }
        default:
            throw UnknownStore()
        }
    }

    /// Stores `url` as the merchant's callback URL without the checks merchant settings apply, as
    /// a URL written before the rules (or straight into the database) would be.
    func storeCallbackURL(_ url: String) async throws {
        var merchant = try #require(try await store.merchant(id: self.merchant.id))
        merchant.callbackURL = url
        try await store.updateMerchant(
            merchant, sealedGatewayCredentials: nil,
            audit: AuditEntry(merchantID: merchant.id, actor: "test", action: "merchant.updated", objectType: "merchant", objectID: merchant.id))
    }

    /// The receiver's port.
    var receiverPort: Int { URL(string: receiver.url)?.port ?? 0 }

    /// The merchant's signing key, as bytes (what `vault webhooks secret` prints, decoded).
    func signingKey() async throws -> [UInt8] {
        try await keyring.key(merchantID: merchant.id, purpose: .webhook).key.copyToArray()
    }

    func event(_ id: String) async throws -> WebhookEvent? { try await store.webhookEvent(id: id) }

    struct UnknownStore: Error {}

    func tearDown() async {
        await receiver.stop()
        database.sqlite?.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// HMAC-SHA256 written out from RFC 2104 over plain SHA-256, so signatures are checked
/// against a computation that does not use the code under test.
func independentHMACSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var block = key.count > 64 ? Digest.sha256(key) : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    let inner = Digest.sha256(block.map { $0 ^ 0x36 } + message)
    return Digest.sha256(block.map { $0 ^ 0x5c } + inner)
}
