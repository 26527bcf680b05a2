import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Scheduler
import ServiceLifecycle
import Synchronization
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// A merchant's webhook endpoint on 127.0.0.1 that records deliveries and answers with queued
/// statuses (200 once the queue is empty).
final class TestWebhookEndpoint: Sendable {
    struct Delivery: Sendable {
        var headers: [String: String]
        var body: [UInt8]
        var eventID: String? { headers["vault-event-id"] }
    }

    private let deliveries = Mutex<[Delivery]>([])
    private let statuses = Mutex<[Int]>([])
    private let server = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let boundPort = Mutex(0)

    var url: String { "http://127.0.0.1:\(boundPort.withLock { $0 })/hooks" }
    var received: [Delivery] { deliveries.withLock { $0 } }

    func answer(_ codes: Int...) { statuses.withLock { $0 += codes } }

    func start() async throws {
        let router = Router()
        router.post("hooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            self.deliveries.withLock { $0.append(Delivery(headers: headers, body: Array(body.readableBytesView))) }
            let status = self.statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            return Response(status: HTTPResponse.Status(code: status))
        }
        var logger = Logger(label: "webhook-endpoint")
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
        server.withLock { $0 = (group, Task { try await group.run() }) }
        for await port in ports { boundPort.withLock { $0 = port } }
    }

    /// Stops gracefully: requests in progress finish first.
    func stop() async {
        guard let (group, task) = server.withLock({ $0 }) else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// Suspends until `count` deliveries arrived; polls, so nothing depends on timing.
    func waitForDeliveries(_ count: Int) async throws {
        while received.count < count {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

@Suite struct WebhookDeliveryTests {
    @Test func vaultWebhooksDeliverSendsDueEventsSignedWithTheSecretItPrints() async throws {
        let endpoint = TestWebhookEndpoint()
        try await endpoint.start()
        let vault = try await VaultProcess.onTestEngine()
        try vault.allowPrivateCallbackTargets()
        try await vault.initialize()
        let created = try await vault.run(["merchant", "create", "acme", "--callback-url", endpoint.url, "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let merchantID = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["merchantId"] as? String)

        let ids = try await vault.withStore { store in
            try await enqueueWebhooks(
                store, [(.transactionApproved, merchantID, ["transactionId": "txn_1"]), (.scheduleCompleted, merchantID, ["scheduleId": "sch_1"])])
        }

        let delivered = try await vault.run(["webhooks", "deliver", "--json"])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(delivered.stdout.utf8)) as? [String: Int]
        #expect(report == ["delivered": 2, "failed": 0, "expired": 0, "purged": 0])
        #expect(Set(endpoint.received.compactMap(\.eventID)) == Set(ids))

        let secret = try await vault.run(["webhooks", "secret", "acme"])
        #expect(secret.status == 0)
        #expect(secret.stderr.contains("sensitive"))
        let key = try Encoding.fromBase64(secret.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(key.count == 32)
        for delivery in endpoint.received {
            let header = try #require(delivery.headers["vault-signature"])
            #expect(WebhookSignature.isValid(header: header, body: delivery.body, key: key))
        }

        let again = try await vault.run(["webhooks", "deliver"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 delivered, 0 failed, 0 expired"))
        #expect(endpoint.received.count == 2)
        await endpoint.stop()
    }

    @Test func vaultWebhooksDeliverExitsWith1WhenAnAttemptFailed() async throws {
        let endpoint = TestWebhookEndpoint()
        try await endpoint.start()
        endpoint.answer(500)
        let vault = try await VaultProcess.onTestEngine()
        try vault.allowPrivateCallbackTargets()
        try await vault.initialize()
        let created = try await vault.run(["merchant", "create", "acme", "--callback-url", endpoint.url, "--json"])
        let merchantID = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["merchantId"] as? String)
        let id = try await vault.withStore { store in
            try await enqueueWebhooks(store, [(.transactionDeclined, merchantID, ["transactionId": "txn_2"])])[0]
        }

        let failed = try await vault.run(["webhooks", "deliver", "--json"])
        #expect(failed.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Int]
        #expect(report == ["delivered": 0, "failed": 1, "expired": 0, "purged": 0])

        let listed = try await vault.run(["webhooks", "list", "--merchant", "acme", "--json"])
        #expect(listed.status == 0)
        let events = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        #expect(events?.count == 1)
        #expect(events?.first?["id"] as? String == id)
        #expect(events?.first?["status"] as? String == "pending")
        #expect(events?.first?["attempts"] as? Int == 1)
        #expect(events?.first?["lastError"] as? String == "http 500")
        #expect(!listed.stdout.contains("txn_2"))
        await endpoint.stop()
    }

    @Test func theServerDeliversInTheBackground() async throws {
        let endpoint = TestWebhookEndpoint()
        try await endpoint.start()
        let fixture = try await APIFixture {
            $0.webhooks.pollSeconds = 1
            $0.webhooks.allowPrivateTargets = true
        }
        _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: MerchantSettings(callbackURL: endpoint.url), actor: "test")
        let merchantID = fixture.merchantA.id
        let id = try await enqueueWebhooks(fixture.runtime.store, [(.secureCardRegistered, merchantID, ["secureCardReference": "sc_x"])])[0]
        try await fixture.live { _ in try await endpoint.waitForDeliveries(1) }
        #expect(endpoint.received.map(\.eventID) == [id])
        #expect(try await fixture.runtime.store.webhookEvent(id: id)?.status == .delivered)
        #expect(!fixture.logText.contains(endpoint.url))
        await endpoint.stop()
    }

    @Test func theDeliveryServiceStopsOnGracefulShutdown() async throws {
        let endpoint = TestWebhookEndpoint()
        try await endpoint.start()
        let fixture = try await APIFixture { $0.webhooks.allowPrivateTargets = true }
        _ = try await fixture.runtime.merchants.update(name: "merchant-b", settings: MerchantSettings(callbackURL: endpoint.url), actor: "test")
        let merchantID = fixture.merchantB.id
        try await enqueueWebhooks(fixture.runtime.store, [(.secureCardDeleted, merchantID, [:])])
        let service = WebhookDeliveryService(
            deliverer: fixture.runtime.webhookDeliverer(logger: fixture.logger), pollInterval: .seconds(3600), logger: fixture.logger)
        let group = ServiceGroup(configuration: .init(services: [service], logger: fixture.logger))
        let running = Task { try await group.run() }
        try await endpoint.waitForDeliveries(1)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(endpoint.received.count == 1)
        await endpoint.stop()
    }
}
