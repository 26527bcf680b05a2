import Foundation
@testable import GatewayFakes
import Payments
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `vault charge run` settles one-off transactions whose answer was lost before it charges anything.
@Suite struct ChargeRunReconcileTests {
    @Test func aChargeRunFirstSettlesOneOffSalesInDoubtFromTheGateway() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        let runtime = try await setup.runtime()
        let merchant = setup.merchant
        fake.core.enqueue(.garbageAfterProcessing)
        let sale = try JSONDecoder().decode(TransactionRequest.self, from: Data(TransactionRoutesTests.rawSale("4111111111111111").utf8)).validated(for: merchant)
        var inDoubt: Transaction?
        do {
            _ = try await runtime.transactions.create(sale, merchant: merchant, actor: "test")
        } catch TransactionError.gatewayFailed(let transaction) {
            inDoubt = transaction
        }
        runtime.close()
        let id = try #require(inDoubt?.id)

        let file = setup.vault.directory.file("vault.yaml")
        try "runner:\n  inDoubtGraceSeconds: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        // The grace period: a gateway may still be processing a request that has just arrived.
        try await Task.sleep(for: .milliseconds(1_100))
        let run = try await setup.vault.run(["charge", "run", "--config", file, "--json"], environment: setup.environment)
        #expect(run.status == 0, "\(run.stderr)")

        let settled = try await setup.vault.withStore { store in try await store.transaction(merchantID: merchant.id, id: id) }
        #expect(settled?.status == .approved)
        #expect(settled?.gatewayTransactionID == fake.transactions(orderID: Transaction.orderReference(for: id)).first?.transactionID)
        #expect(fake.receivedTypes == ["sale"], "looked up, never sent again")
    }
}
