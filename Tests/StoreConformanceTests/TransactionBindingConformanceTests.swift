import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Transaction bindings on the run's engine: the engines store the `binding` the domain computed,
/// as given, wherever a transaction is written (insert, outcome, a card attached), never compute
/// one, and list and fill only rows that have none.
@Suite("Store conformance: transaction bindings")
struct TransactionBindingConformanceTests {
    static func stored(_ fixture: StoreFixture, _ id: String) async throws -> Transaction {
        try #require(try await fixture.store.transaction(merchantID: fixture.merchantID, id: id))
    }

    @Test func theBindingGivenIsStoredAtTheInsertTheOutcomeAndTheAttachedCard() async throws {
        let fixture = try await StoreFixture()
        var sale = try await fixture.transaction { $0.binding = [1, 2, 3] }
        #expect(try await Self.stored(fixture, sale.id).binding == [1, 2, 3])

        sale.status = .approved
        sale.gatewayTransactionID = "gw-1"
        sale.binding = [4, 5, 6]
        try await fixture.store.completeTransaction(
            sale, parentUpdate: nil,
            audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "transaction.sale", objectType: "transaction", objectID: sale.id),
            notices: .none)
        #expect(try await Self.stored(fixture, sale.id).binding == [4, 5, 6])

        try await fixture.store.attachSecureCard(
            transactionID: sale.id, merchantID: fixture.merchantID, secureCardReference: fixture.card.reference,
            merchantReference: fixture.card.merchantReference, binding: [7, 8, 9])
        let attached = try await Self.stored(fixture, sale.id)
        #expect(attached.binding == [7, 8, 9] && attached.secureCardReference == fixture.card.reference)
    }

    @Test func onlyRowsWithoutABindingAreListedAndFilled() async throws {
        let fixture = try await StoreFixture()
        let bound = try await fixture.transaction { $0.binding = [1] }
        let first = try await fixture.transaction()
        let second = try await fixture.transaction()
        #expect(try await fixture.store.transactionsWithoutBinding(limit: 10).map(\.id) == [first.id, second.id])
        #expect(try await fixture.store.transactionsWithoutBinding(limit: 1).map(\.id) == [first.id])

        try await fixture.store.bindTransactionRows(
            [(bound.id, [9]), (first.id, [2])],
            audit: AuditEntry(merchantID: fixture.merchantID, actor: "system", action: "transactions.bound", objectType: "merchant", objectID: fixture.merchantID))
        #expect(try await Self.stored(fixture, bound.id).binding == [1], "a row bound meanwhile keeps its own")
        #expect(try await Self.stored(fixture, first.id).binding == [2])
        #expect(try await fixture.store.transactionsWithoutBinding(limit: 10).map(\.id) == [second.id])
        #expect(try await fixture.database.sql.count("SELECT count(*) AS n FROM audit_events WHERE action = 'transactions.bound'") == 1)
    }
}
