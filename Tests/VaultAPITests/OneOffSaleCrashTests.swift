import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import Logging
import NIOCore
import NIOHTTP1
import Payments
import Synchronization
import Testing
import Vault
@testable import VaultAPI

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
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let vault = try await VaultProcess.onTestEngine()
        let masterKey = Encoding.base64(RandomBytes.make(32))
        var configuration = VaultConfiguration()
        configuration.database = vault.database
        configuration.keys.directory = vault.directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = masterKey
        var quiet = Logger(label: "one-off-crash")
        quiet.logLevel = .critical
        let apiKey: String
        do {
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: quiet)
            defer { runtime.close() }
            apiKey = try await runtime.merchants.create(
                name: "acme", role: .admin,
                settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                                verifyOnRegistration: false),
                actor: "test"
            ).apiKey.bearer
        }

        // In order of arrival: charged and held until the server is dead, charged and answered with
        // garbage, not charged and answered with garbage; the rest approved.
        for _ in 0..<Self.held { fake.core.enqueue(.holdAfterProcessing) }
        for _ in 0..<2 { fake.core.enqueue(.garbageAfterProcessing) }
        for _ in 0..<2 { fake.core.enqueue(.garbage) }

        let environment = [
            "VAULT_MASTER_KEY": masterKey, "VAULT_DATABASE": vault.directory.file("data/vault.sqlite"),
            "VAULT_KEYS_DIR": vault.directory.file("keys"), "VAULT_PORT": "0",
        ]
        let server = try vault.start(["serve"], environment: environment)
        let port = try #require(try ServerProcess.waitForPort(server))
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
        _ = server.waitUntilExit()
        fake.core.releaseHeldResponses()
        await requests.value

        let runtime = try await VaultRuntime.open(configuration: configuration, logger: quiet)
        defer { runtime.close() }
        let merchant = try #require(try await runtime.store.merchant(named: "acme"))
        let before = try await runtime.store.transactions(merchantID: merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 100)
        #expect(before.filter { $0.status == .pending }.count == Self.held, "the killed server's sales were left pending")

        let grace = TimeInterval(configuration.runner.inDoubtGraceSeconds)
        let summary = try await runtime.reconciler(logger: quiet).reconcile(now: Date().addingTimeInterval(grace + TransactionReconciler.requestBound + 1))
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
