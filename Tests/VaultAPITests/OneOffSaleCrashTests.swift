import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
import Payments
import Synchronization
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// One-off sales in flight when `vault serve` is killed (SIGKILL), against NMI's fake that charges
/// and then answers slowly, lost or garbled: after the reconciler, every order the gateway charged
/// is known to the vault with its true outcome, nothing the gateway never saw is counted as money,
/// and no order is charged twice.
@Suite struct OneOffSaleCrashTests {
    static let sales = 12
    /// Sales the fake charges and holds the answer of until the server is dead (left `pending`).
    static let held = 4

    /// Answers received, counted by many tasks.
    final class Counter: Sendable {
        private let value = Atomic(0)

        func add() { value.add(1, ordering: .sequentiallyConsistent) }
        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    @Test func salesInFlightWhenTheServerIsKilledAreSettledFromTheGatewayAndNoneIsChargedTwice() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        let apiKey = setup.apiKey

        // In order of arrival: charged and held until the server is dead, charged and answered with
        // garbage, not charged and answered with garbage; the rest approved.
        for _ in 0..<Self.held { fake.core.enqueue(.holdAfterProcessing) }
        for _ in 0..<2 { fake.core.enqueue(.garbageAfterProcessing) }
        for _ in 0..<2 { fake.core.enqueue(.garbage) }

        let server = try setup.vault.start(["serve"], environment: setup.environment.merging(["VAULT_PORT": "0"]) { _, new in new })
        let port = try #require(try await ServerProcess.waitForPort(server))
        let answered = Counter()
        let requests = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<Self.sales {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/transactions")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.headers.add(name: "Idempotency-Key", value: "crash-\(index)")
                        request.body = .bytes(ByteBuffer(string: TransactionRoutesTests.rawSale("4111111111111111", amount: 1001 + index)))
                        if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(60)) {
                            _ = try? await response.body.collect(upTo: 1 << 20)
                            answered.add()
                        }
                    }
                }
            }
        }
        await fake.core.waitUntilHolding(Self.held)
        for _ in 0..<3_000 where answered.count < Self.sales - Self.held {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(answered.count == Self.sales - Self.held)
        kill(server.pid, SIGKILL)
        _ = await server.exited()
        fake.core.releaseHeldResponses()
        await requests.value

        let runtime = try await setup.runtime()
        defer { runtime.close() }
        let merchant = setup.merchant
        let before = try await runtime.store.transactions(merchantID: merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 100)
        #expect(before.filter { $0.status == .pending }.count == Self.held, "the killed server's sales were left pending")

        let grace = TimeInterval(runtime.configuration.runner.inDoubtGraceSeconds)
        let summary = try await runtime.reconciler(logger: NMIMerchantVault.quiet).reconcile(now: Date().addingTimeInterval(grace + TransactionReconciler.requestBound + 1))
        #expect(summary.settled == Self.held + 2)
        #expect(summary.notCharged == 2)

        let after = try await runtime.store.transactions(merchantID: merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 100)
        #expect(after.count == Self.sales)
        for transaction in after {
            let atGateway = fake.transactions(orderID: transaction.orderReference)
            #expect(atGateway.count <= 1, "an order charged twice")
            if let charged = atGateway.first {
                #expect(transaction.status == .approved && transaction.gatewayTransactionID == charged.transactionID,
                        "charged at the gateway, \(transaction.status) in the vault")
            } else {
                #expect(transaction.status == .error, "never reached the gateway, \(transaction.status) in the vault")
            }
        }
        #expect(fake.chargeCount == Self.sales - 2)
        #expect(fake.receivedTypes.count == Self.sales, "nothing was sent again")
    }
}
