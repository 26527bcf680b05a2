import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
import Payments
import StorageTestSupport
import Testing
import Vault
import VaultSQLite
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A sale whose server was killed while it held the sale's `Idempotency-Key`: once the claim's lease
/// has passed, the client's retry with the same key takes the claim over and answers the sale the
/// dead server recorded (in doubt, then settled by the reconciler from the gateway) without sending
/// anything again; a key whose dead holder recorded nothing runs its sale once, under the
/// transaction id the claim reserved.
@Suite struct AbandonedIdempotencyKeyTests {
    /// What the API answered, read from its JSON.
    struct Answer: Sendable {
        var status: Int
        /// The transaction's id: the body's own, or the one an error names.
        var transactionID: String?
        /// The transaction's status, on a 201.
        var transactionStatus: String?
        var errorCode: String?

        init(status: Int, body: [String: Any]) {
            self.status = status
            transactionID = (body["id"] as? String) ?? ((body["transaction"] as? [String: Any])?["id"] as? String)
            transactionStatus = body["status"] as? String
            errorCode = (body["error"] as? [String: Any])?["code"] as? String
        }
    }

    static let amount = 1_500

    static func sale(port: Int, apiKey: String, key: String) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/transactions")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: key)
        request.body = .bytes(ByteBuffer(string: TransactionRoutesTests.rawSale("4111111111111111", amount: amount)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let body = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:]
        return Answer(status: Int(response.status.code), body: body)
    }

    /// Moves every claim's lease into the past, as if the lease had run out.
    static func expireClaims(_ runtime: VaultRuntime) async throws {
        _ = try await TestSQL(runtime.store).run("UPDATE idempotency_keys SET expires_at = '2000-01-01T00:00:00.000Z' WHERE state = 'in_progress'")
    }

    @Test func aRetryAfterTheServerDiedMidSaleAnswersThatSaleAndNeverChargesItAgain() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        let environment = setup.environment.merging(["VAULT_PORT": "0"]) { _, new in new }
        fake.core.enqueue(.holdAfterProcessing)

        let dying = try setup.vault.start(["serve"], environment: environment)
        let dyingPort = try #require(try await ServerProcess.waitForPort(dying))
        let lost = Task { try? await Self.sale(port: dyingPort, apiKey: setup.apiKey, key: "order-7") }
        await fake.core.waitUntilHolding(1)
        kill(dying.pid, SIGKILL)
        _ = await dying.exited()
        fake.core.releaseHeldResponses()
        #expect(await lost.value == nil, "the client never heard back")
        #expect(fake.chargeCount == 1)

        let server = try setup.vault.start(["serve"], environment: environment)
        defer { kill(server.pid, SIGTERM) }
        let port = try #require(try await ServerProcess.waitForPort(server))
        let runtime = try await setup.runtime()
        defer { runtime.close() }

        // Within the dead server's lease the key is still in use.
        let early = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-7")
        #expect(early.status == 409 && early.errorCode == "idempotency_key_in_use")

        try await Self.expireClaims(runtime)
        let pending = try #require(try await runtime.store.transactions(
            merchantID: setup.merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 10).first)
        #expect(pending.status == .pending)
        let retried = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-7")
        #expect(retried.status == 502 && retried.errorCode == "gateway_in_doubt", "\(retried.status) \(retried.errorCode ?? "-")")
        #expect(retried.transactionID == pending.id)
        #expect(fake.receivedTypes.count == 1, "the retry sent nothing to the gateway")

        let grace = TimeInterval(runtime.configuration.runner.inDoubtGraceSeconds)
        let summary = try await runtime.reconciler(logger: NMIMerchantVault.quiet)
            .reconcile(now: Date().addingTimeInterval(grace + TransactionReconciler.requestBound + 1))
        #expect(summary.settled == 1)

        let settled = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-7")
        #expect(settled.status == 201, "\(settled.status) \(settled.errorCode ?? "-")")
        #expect(settled.transactionID == pending.id)
        #expect(settled.transactionStatus == "approved")
        #expect(fake.chargeCount == 1, "charged once")
        #expect(fake.receivedTypes.count == 1, "nothing sent again")
        #expect(try await runtime.store.transactions(
            merchantID: setup.merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 10).count == 1)
    }

    @Test func aKeyWhoseDeadHolderRecordedNothingRunsItsSaleOnceUnderTheReservedId() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        let runtime = try await setup.runtime()
        defer { runtime.close() }
        // A server claimed the key exactly as the middleware does, then died before recording the sale.
        let body = TransactionRoutesTests.rawSale("4111111111111111", amount: Self.amount)
        let reserved = Transaction.makeID()
        let claim = try await runtime.idempotency.claim(
            merchantID: setup.merchant.id, key: "order-8", request: Array("POST /v1/transactions?\n\(body)".utf8), transactionID: reserved)
        guard case .started = claim else {
            Issue.record("expected a new claim, got \(claim)")
            return
        }

        let server = try setup.vault.start(["serve"], environment: setup.environment.merging(["VAULT_PORT": "0"]) { _, new in new })
        defer { kill(server.pid, SIGTERM) }
        let port = try #require(try await ServerProcess.waitForPort(server))
        let early = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-8")
        #expect(early.status == 409 && early.errorCode == "idempotency_key_in_use")
        #expect(fake.receivedTypes.isEmpty)

        try await Self.expireClaims(runtime)
        let retried = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-8")
        #expect(retried.status == 201, "\(retried.status) \(retried.errorCode ?? "-")")
        #expect(retried.transactionID == reserved)
        let replayed = try await Self.sale(port: port, apiKey: setup.apiKey, key: "order-8")
        #expect(replayed.status == 201 && replayed.transactionID == reserved)
        #expect(fake.chargeCount == 1)
    }
}
