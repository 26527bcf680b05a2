import Foundation
@testable import Payments
import StorageTestSupport
import Synchronization
import Testing
import Vault
import VaultSQLite

/// The sandbox, keeping every follow-up it receives (capture, void, refund) for the test to read.
final class FollowUpRecordingGateway: GatewayAdapter {
    let name = "sandbox"
    let sandbox = SandboxGateway()
    /// Follow-ups received: the kind, the gateway transaction id and the amount.
    let followUps = Mutex<[(kind: String, id: String, amount: Int64?)]>([])

    private func record(_ kind: String, _ request: FollowUpRequest) {
        followUps.withLock { $0.append((kind, request.gatewayTransactionID, request.amount?.minorUnits)) }
    }

    func sale(_ request: ChargeRequest) async -> GatewayResult { await sandbox.sale(request) }
    func authorize(_ request: ChargeRequest) async -> GatewayResult { await sandbox.authorize(request) }
    func verify(_ request: ChargeRequest) async -> GatewayResult { await sandbox.verify(request) }
    func credit(_ request: ChargeRequest) async -> GatewayResult { await sandbox.credit(request) }
    func capture(_ request: FollowUpRequest) async -> GatewayResult {
        record("capture", request)
        return await sandbox.capture(request)
    }
    func void(_ request: FollowUpRequest) async -> GatewayResult {
        record("void", request)
        return await sandbox.void(request)
    }
    func refund(_ request: FollowUpRequest) async -> GatewayResult {
        record("refund", request)
        return await sandbox.refund(request)
    }
    func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await sandbox.lookup(reference: reference, gatewayTransactionID: gatewayTransactionID)
    }
}

/// Two merchants on one recording sandbox, over a fresh database of the run's engine.
struct TamperFixture {
    let directory: String
    let database: TestDatabase
    let gateway = FollowUpRecordingGateway()
    let service: TransactionService
    let bindings: TransactionBinding
    let merchant: Merchant
    let otherMerchant: Merchant

    init() async throws {
        directory = NSTemporaryDirectory() + "tamper-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try await TestDatabase(path: directory + "/vault.sqlite")
        let store = database.storage
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        let cards = SecureCardService(store: store, keyring: keyring, verifier: ReversalFixture.ApproveAll())
        service = TransactionService(store: store, cards: cards, gateways: MerchantGateways(every: gateway, registry: GatewayRegistry(), merchants: merchants))
        bindings = TransactionBinding(keyring: keyring)
        merchant = try await merchants.create(name: "m", role: .admin, settings: MerchantSettings(gateway: "sandbox"), actor: "test").merchant
        otherMerchant = try await merchants.create(name: "other", role: .admin, settings: MerchantSettings(gateway: "sandbox"), actor: "test").merchant
    }

    /// An approved payment by raw card.
    func payment(_ type: String = "sale", amount: Int64, merchant: Merchant? = nil) async throws -> Transaction {
        let owner = merchant ?? self.merchant
        let card = CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace"))
        let order = try NewTransaction(type: type, amount: amount, currency: "USD", source: card, merchant: owner)
        return try await service.create(order, merchant: owner, actor: "test")
    }

    func stored(_ transaction: Transaction) async throws -> Transaction {
        try await service.get(id: transaction.id, merchant: merchant)
    }

    func count(_ sql: SQLiteQuery) async throws -> Int {
        try await database.sql.count(sql)
    }

    func close() {
        database.sqlite?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Someone who can write to the database but holds no key cannot make a follow-up move money the
/// vault did not record: a sale re-priced or pointed at another merchant's gateway transaction in
/// SQL is refused (409 `transaction_integrity_failed`) before anything is recorded or sent, with an
/// audit event; an untouched payment's follow-ups go through. On SQLite, and on PostgreSQL with
/// `VAULT_TEST_ENGINE=postgres`.
@Suite struct TamperedTransactionFollowUpTests {
    /// Runs `body`, expecting the integrity refusal, then checks nothing was recorded or sent.
    static func expectRefused(_ fixture: TamperFixture, original: Transaction, _ body: () async throws -> Transaction) async throws {
        let before = try await fixture.count("SELECT count(*) AS n FROM transactions")
        let refusals: SQLiteQuery = "SELECT count(*) AS n FROM audit_events WHERE action = 'transaction.integrity_failed' AND object_id = \(original.id)"
        let audited = try await fixture.count(refusals)
        do {
            _ = try await body()
            Issue.record("the follow-up went through")
        } catch TransactionError.notAllowed(let code, let message) {
            #expect(code == "transaction_integrity_failed")
            #expect(message.contains(original.id))
        }
        #expect(fixture.gateway.followUps.withLock { $0.count } == 0, "nothing sent to the gateway")
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions") == before, "nothing recorded")
        #expect(try await fixture.count(refusals) == audited + 1, "the refusal is audited")
    }

    @Test func aSaleRaisedInSQLAndRefundedInFullIsRefusedAndNothingIsSent() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 1000)
        #expect(try await fixture.database.sql.run("UPDATE transactions SET amount = 8000000 WHERE id = \(sale.id)") == 1)
        try await Self.expectRefused(fixture, original: sale) {
            try await fixture.service.refund(id: sale.id, amount: nil, merchant: fixture.merchant, actor: "test")
        }
    }

    @Test func aSalePointedAtAnotherMerchantsGatewayTransactionInSQLIsRefused() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 1000)
        let theirs = try await fixture.payment(amount: 900, merchant: fixture.otherMerchant)
        let theirGatewayID = try #require(theirs.gatewayTransactionID)
        #expect(try await fixture.database.sql.run("UPDATE transactions SET gateway_transaction_id = \(theirGatewayID) WHERE id = \(sale.id)") == 1)
        try await Self.expectRefused(fixture, original: sale) {
            try await fixture.service.refund(id: sale.id, amount: 500, merchant: fixture.merchant, actor: "test")
        }
        try await Self.expectRefused(fixture, original: sale) {
            try await fixture.service.void(id: sale.id, merchant: fixture.merchant, actor: "test")
        }
    }

    @Test func aSaleWhoseBindingWasRemovedInSQLIsRefused() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 1000)
        #expect(try await fixture.database.sql.run("UPDATE transactions SET binding = NULL WHERE id = \(sale.id)") == 1)
        try await Self.expectRefused(fixture, original: sale) {
            try await fixture.service.refund(id: sale.id, amount: nil, merchant: fixture.merchant, actor: "test")
        }
    }

    @Test func anAuthorizationWhoseAmountWasRaisedInSQLIsNotCaptured() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let authorization = try await fixture.payment("authorize", amount: 1000)
        #expect(try await fixture.database.sql.run("UPDATE transactions SET amount = 8000000 WHERE id = \(authorization.id)") == 1)
        try await Self.expectRefused(fixture, original: authorization) {
            try await fixture.service.capture(id: authorization.id, amount: nil, merchant: fixture.merchant, actor: "test")
        }
    }

    @Test func anUntouchedSaleRefundsInPartsAndInFull() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let sale = try await fixture.payment(amount: 1000)
        #expect(await fixture.bindings.isIntact(try await fixture.stored(sale)))
        let first = try await fixture.service.refund(id: sale.id, amount: 400, merchant: fixture.merchant, actor: "test")
        let rest = try await fixture.service.refund(id: sale.id, amount: nil, merchant: fixture.merchant, actor: "test")
        #expect(first.status == .approved && rest.status == .approved && rest.amount == 600)
        #expect(fixture.gateway.followUps.withLock { $0.map(\.amount) } == [400, 600])
        #expect(await fixture.bindings.isIntact(try await fixture.stored(sale)), "the original's refunded amount is not bound")
        #expect(await fixture.bindings.isIntact(try await fixture.stored(rest)), "the refund is bound with its gateway id")
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'transaction.integrity_failed'") == 0)
    }

    @Test func anUntouchedAuthorizationIsCapturedAndTheCaptureVoided() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let authorization = try await fixture.payment("authorize", amount: 1000)
        let capture = try await fixture.service.capture(id: authorization.id, amount: nil, merchant: fixture.merchant, actor: "test")
        #expect(await fixture.bindings.isIntact(try await fixture.stored(capture)))
        let void = try await fixture.service.void(id: capture.id, merchant: fixture.merchant, actor: "test")
        #expect(void.status == .approved)
        #expect(fixture.gateway.followUps.withLock { $0.map(\.kind) } == ["capture", "void"])
    }

    @Test func aSaleThatRegisteredItsCardIsBoundWithTheCardAndRefunds() async throws {
        let fixture = try await TamperFixture()
        defer { fixture.close() }
        let card = CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace"))
        let order = try NewTransaction(
            type: "sale", amount: 1000, currency: "USD", source: card, registration: NewTransaction.SaleRegistration(merchantReference: "ada-1"),
            merchant: fixture.merchant)
        let sale = try await fixture.service.create(order, merchant: fixture.merchant, actor: "test")
        let stored = try await fixture.stored(sale)
        #expect(stored.secureCardReference != nil && stored.secureCardReference == sale.secureCardReference && stored.binding == sale.binding)
        #expect(await fixture.bindings.isIntact(stored))
        let refund = try await fixture.service.refund(id: sale.id, amount: nil, merchant: fixture.merchant, actor: "test")
        #expect(refund.status == .approved)
    }
}
