import Foundation
@testable import Payments
import StorageTestSupport
import Synchronization
import Testing
import Vault
import VaultSQLite

/// A service over a fresh database of the run's engine whose merchant's gateway is a
/// ``PartialReversalGateway``.
struct ReversalFixture {
    let directory: String
    let database: TestDatabase
    let gateway: PartialReversalGateway
    let service: TransactionService
    let merchant: Merchant

    struct ApproveAll: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .verified(CardVerificationRecord(status: "verified", gateway: "stub", transactionId: nil, avsResult: nil, cvvResult: nil, verifiedAt: Date()))
        }
    }

    init(partialVoid: Bool, window: TimeInterval = TransactionService.defaultReversalWindow) async throws {
        directory = NSTemporaryDirectory() + "reversal-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try await TestDatabase(path: directory + "/vault.sqlite")
        let store = database.storage
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        let cards = SecureCardService(store: store, keyring: keyring, verifier: ApproveAll())
        gateway = PartialReversalGateway(partialVoid: partialVoid)
        service = TransactionService(
            store: store, cards: cards, gateways: MerchantGateways(every: gateway, registry: GatewayRegistry(), merchants: merchants),
            reversalWindow: window)
        merchant = try await merchants.create(name: "m", role: .admin, settings: MerchantSettings(gateway: "sandbox"), actor: "test").merchant
    }

    /// An approved sale or authorization by raw card.
    func payment(_ type: String = "sale", amount: Int64, now: Date = Date()) async throws -> Transaction {
        let card = CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace"))
        let order = try NewTransaction(type: type, amount: amount, currency: "USD", source: card, merchant: merchant)
        return try await service.create(order, merchant: merchant, actor: "test", now: now)
    }

    func reread(_ transaction: Transaction) async throws -> Transaction {
        try await service.get(id: transaction.id, merchant: merchant)
    }

    func transactionCount() async throws -> Int {
        try await database.sql.count("SELECT count(*) AS n FROM transactions")
    }

    func close() {
        database.sqlite?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Voids that reverse what they say: a partial reversal only where the merchant's gateway takes
/// one, shown on the original as `voidedAmount` with its status kept, so the rest is right for
/// later voids, captures and refunds. On SQLite, and on PostgreSQL with `VAULT_TEST_ENGINE=postgres`.
@Suite struct PartialReversalTests {
    static func expectInvalid(_ code: String, mentioning text: String? = nil, _ body: () async throws -> Transaction) async {
        do {
            _ = try await body()
            Issue.record("accepted; expected \(code)")
        } catch TransactionError.invalid(let field, let got, let message) {
            #expect(field == "amount")
            #expect(got == code)
            if let text { #expect(message.contains(text), "\(message)") }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aPartialVoidReversesOnlyItsAmountAndLeavesTheRestToRefund() async throws {
        let fixture = try await ReversalFixture(partialVoid: true)
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 3333)
        let void = try await fixture.service.void(id: sale.id, amount: 1000, merchant: fixture.merchant, actor: "test")
        #expect(void.type == .void && void.status == .approved && void.amount == 1000)
        #expect(fixture.gateway.voids.withLock { $0.map(\.amount) } == [1000])

        var original = try await fixture.reread(sale)
        #expect(original.status == .approved)
        #expect(original.voidedAmount == 1000)
        #expect(original.refundableAmount == 2333)
        #expect(original.voidableAmount == 2333)

        let refund = try await fixture.service.refund(id: sale.id, amount: nil, merchant: fixture.merchant, actor: "test")
        #expect(refund.amount == 2333)
        original = try await fixture.reread(sale)
        #expect(original.status == .refunded)
        #expect(original.refundedAmount == 2333 && original.refundableAmount == 0)
    }

    @Test func partialVoidsThatReachTheAmountVoidTheOriginal() async throws {
        let fixture = try await ReversalFixture(partialVoid: true)
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 3333)
        _ = try await fixture.service.void(id: sale.id, amount: 1000, merchant: fixture.merchant, actor: "test")
        await Self.expectInvalid("amount_exceeds_voidable", mentioning: "2333") {
            try await fixture.service.void(id: sale.id, amount: 2334, merchant: fixture.merchant, actor: "test")
        }
        _ = try await fixture.service.void(id: sale.id, amount: 333, merchant: fixture.merchant, actor: "test")
        // Without an amount: everything that remains, and no more.
        let rest = try await fixture.service.void(id: sale.id, merchant: fixture.merchant, actor: "test")
        #expect(rest.amount == 2000)
        let original = try await fixture.reread(sale)
        #expect(original.status == .voided && original.voidedAmount == 3333)
        #expect(original.refundableAmount == 0 && original.voidableAmount == 0)
        #expect(fixture.gateway.voids.withLock { $0.map(\.amount) } == [1000, 333, 2000])
    }

    @Test func aPartialVoidOfAnAuthorizationLowersWhatACaptureMayTake() async throws {
        let fixture = try await ReversalFixture(partialVoid: true)
        defer { fixture.close() }
        let authorization = try await fixture.payment("authorize", amount: 5000)
        _ = try await fixture.service.void(id: authorization.id, amount: 2000, merchant: fixture.merchant, actor: "test")
        do {
            _ = try await fixture.service.capture(id: authorization.id, amount: 3001, merchant: fixture.merchant, actor: "test")
            Issue.record("captured more than remains")
        } catch TransactionError.invalid(_, let code, _) {
            #expect(code == "amount_exceeds_authorized")
        }
        let capture = try await fixture.service.capture(id: authorization.id, amount: nil, merchant: fixture.merchant, actor: "test")
        #expect(capture.amount == 3000)
        let original = try await fixture.reread(authorization)
        #expect(original.status == .captured && original.capturedAmount == 3000 && original.voidedAmount == 2000)
        #expect(original.refundableAmount == 3000)
        // A captured authorization is voided whole: part of it is a refund.
        await Self.expectInvalid("partial_void_not_allowed", mentioning: "/v1/transactions/\(authorization.id)/refund") {
            try await fixture.service.void(id: authorization.id, amount: 100, merchant: fixture.merchant, actor: "test")
        }
    }

    @Test func aPartialVoidIsRefusedWhereTheGatewayVoidsWholeTransactions() async throws {
        let fixture = try await ReversalFixture(partialVoid: false)
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 3333)
        let before = try await fixture.transactionCount()
        await Self.expectInvalid("partial_void_not_supported", mentioning: "POST /v1/transactions/\(sale.id)/refund") {
            try await fixture.service.void(id: sale.id, amount: 1000, merchant: fixture.merchant, actor: "test")
        }
        for bad: Int64 in [0, -5, 3334] {
            await Self.expectInvalid("amount_exceeds_voidable") {
                try await fixture.service.void(id: sale.id, amount: bad, merchant: fixture.merchant, actor: "test")
            }
        }
        #expect(try await fixture.transactionCount() == before)
        #expect(fixture.gateway.voids.withLock { $0.isEmpty })
        #expect(try await fixture.reread(sale).status == .approved)

        // The whole amount, given or not, is a void like before.
        let void = try await fixture.service.void(id: sale.id, amount: 3333, merchant: fixture.merchant, actor: "test")
        #expect(void.amount == 3333)
        let original = try await fixture.reread(sale)
        #expect(original.status == .voided && original.voidedAmount == 3333 && original.refundableAmount == 0)
    }

    /// Twenty refunds of a twentieth each, at once: the last one to land leaves the sale `refunded`
    /// (the status comes from the amounts in the statement that changes them, not from a copy
    /// read before the write, which left it `partially_refunded` with nothing left).
    @Test func concurrentPartialRefundsThatAddUpToTheSaleLeaveItRefunded() async throws {
        let fixture = try await ReversalFixture(partialVoid: false)
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 2000)
        let approved = try await withThrowingTaskGroup(of: Transaction.self) { group in
            for _ in 0..<20 {
                group.addTask { try await fixture.service.refund(id: sale.id, amount: 100, merchant: fixture.merchant, actor: "test") }
            }
            return try await group.reduce(into: 0) { count, refund in if refund.status == .approved { count += 1 } }
        }
        #expect(approved == 20)
        let original = try await fixture.reread(sale)
        #expect(original.refundedAmount == 2000)
        #expect(original.status == .refunded)
        #expect(original.reversalOptions(ReversalPolicy(window: 3600, partialVoid: true), now: Date()).mode == .none)
    }
}

/// A follow-up checks the state it read when it is written: a void sent while a capture of the same
/// authorization is still at the gateway is refused (the gateway would void an authorization that
/// is being captured), and goes through once the capture has settled.
@Suite struct FollowUpRaceTests {
    @Test func aVoidWhileACaptureOfTheAuthorizationIsAtTheGatewayIsRefused() async throws {
        let fixture = try await ReversalFixture(partialVoid: false)
        defer { fixture.close() }
        let authorization = try await fixture.payment("authorize", amount: 5000)
        fixture.gateway.holdCaptures.withLock { $0 = true }
        let capturing = Task { try await fixture.service.capture(id: authorization.id, amount: nil, merchant: fixture.merchant, actor: "test") }
        while fixture.gateway.heldCaptureCount == 0 { try await Task.sleep(for: .milliseconds(5)) }

        await #expect(throws: TransactionError.notAllowed(
            code: "not_voidable", message: "A capture of this authorization is still at the gateway; void it once the capture has settled.")) {
            try await fixture.service.void(id: authorization.id, merchant: fixture.merchant, actor: "test")
        }
        #expect(fixture.gateway.voids.withLock { $0.isEmpty }, "nothing was sent to the gateway")

        fixture.gateway.releaseCaptures()
        let capture = try await capturing.value
        #expect(capture.status == .approved)
        let void = try await fixture.service.void(id: capture.id, merchant: fixture.merchant, actor: "test")
        #expect(void.status == .approved && void.parentID == authorization.id)
    }
}
