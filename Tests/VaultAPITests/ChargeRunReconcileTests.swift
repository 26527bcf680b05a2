import Foundation
@testable import GatewayFakes
import Logging
import Payments
import Testing
import Vault
@testable import VaultAPI

/// `vault charge run` settles one-off transactions whose answer was lost before it charges anything.
@Suite struct ChargeRunReconcileTests {
    @Test func aChargeRunFirstSettlesOneOffSalesInDoubtFromTheGateway() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let vault = try await VaultProcess.onTestEngine()
        let masterKey = Encoding.base64(RandomBytes.make(32))
        var configuration = VaultConfiguration()
        configuration.database = vault.database
        configuration.keys.directory = vault.directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = masterKey
        var quiet = Logger(label: "charge-run-reconcile")
        quiet.logLevel = .critical
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: quiet)
        let merchant = try await runtime.merchants.create(
            name: "acme", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                            verifyOnRegistration: false),
            actor: "test"
        ).merchant
        fake.core.enqueue(.garbageAfterProcessing)
        let sale = try JSONDecoder().decode(TransactionRequest.self, from: Data(TransactionRoutesTests.rawSale("4111111111111111").utf8))
        var inDoubt: Transaction?
        do {
            _ = try await runtime.transactions.create(sale, merchant: merchant, actor: "test")
        } catch TransactionError.gatewayFailed(let transaction) {
            inDoubt = transaction
        }
        runtime.close()
        let id = try #require(inDoubt?.id)

        let file = vault.directory.file("vault.yaml")
        try "runner:\n  inDoubtGraceSeconds: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        // The grace period: a gateway may still be processing a request that has just arrived.
        try await Task.sleep(for: .milliseconds(1_100))
        let environment = [
            "VAULT_MASTER_KEY": masterKey, "VAULT_DATABASE": vault.directory.file("data/vault.sqlite"), "VAULT_KEYS_DIR": vault.directory.file("keys"),
        ]
        let run = try vault.run(["charge", "run", "--config", file, "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")

        let settled = try await vault.withStore { store in try await store.transaction(merchantID: merchant.id, id: id) }
        #expect(settled?.status == .approved)
        #expect(settled?.gatewayTransactionID == fake.transactions(orderID: Transaction.orderReference(for: id)).first?.transactionID)
        #expect(fake.receivedTypes == ["sale"], "looked up, never sent again")
    }
}
