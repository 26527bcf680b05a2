import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `TransactionStore` reads, on the run's engine: totals aggregated by the store equal the sums of
/// the rows written (beyond 2^31 too); searches read amounts and ignore ASCII case, take wildcards
/// literally, and keyset pages give every row once in order, however many are recorded between pages.
@Suite("Store conformance: transaction search and pagination")
struct TransactionSearchConformanceTests {
    static let start = Timestamp.parse("2027-01-01T00:00:00.000Z")!

    /// 300 transactions over three days, two currencies, three statuses, two types.
    static func seed(_ fixture: StoreFixture) async throws -> [Transaction] {
        var generator = SystemRandomNumberGenerator()
        var written: [Transaction] = []
        for index in 0..<300 {
            let createdAt = start.addingTimeInterval(Double(index) * 864)  // 100 a day
            var transaction = Transaction(
                id: Transaction.makeID(at: createdAt), merchantID: fixture.merchantID, type: index % 5 == 0 ? .authorize : .sale,
                amount: Int64.random(in: 1...5_000_000_000, using: &generator), currency: try Currency(code: index % 3 == 0 ? "USD" : "EUR"),
                gateway: "sandbox", now: createdAt, idempotencyKey: "k\(index)", orderReference: "o\(index)")
            transaction.status = [TransactionStatus.approved, .declined, .error][index % 7 % 3]
            transaction.description = index == 42 ? "Gold Membership" : "plan"
            transaction.merchantReference = "Order-\(index)"
            try await fixture.store.insertTransaction(
                transaction,
                audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "transaction.created", objectType: "transaction",
                                  objectID: transaction.id))
            written.append(transaction)
        }
        return written
    }

    @Test func totalsPerPeriodCurrencyTypeAndStatusEqualTheSumsOfTheRows() async throws {
        let fixture = try await StoreFixture()
        let written = try await Self.seed(fixture)
        let day: TimeInterval = 86_400
        let periods = (0..<3).map { index in
            StatisticsPeriod(
                label: "d\(index)", firstDay: CivilDate(dayNumber: 0), lastDay: CivilDate(dayNumber: 0),
                start: Self.start.addingTimeInterval(Double(index) * day), end: Self.start.addingTimeInterval(Double(index + 1) * day))
        }
        let totals = try await fixture.store.transactionTotals(merchantID: fixture.merchantID, periods: periods, selection: StatisticsSelection())
        struct Key: Hashable { var period: Int; var currency: String; var type: TransactionType; var status: TransactionStatus }
        var expected: [Key: AmountSummary] = [:]
        for transaction in written {
            guard let period = periods.firstIndex(where: { $0.start <= transaction.createdAt && transaction.createdAt < $0.end }) else { continue }
            expected[Key(period: period, currency: transaction.currency.code, type: transaction.type, status: transaction.status), default: AmountSummary()]
                .add(AmountSummary(count: 1, turnover: transaction.amount, minimum: transaction.amount, maximum: transaction.amount))
        }
        let actual = Dictionary(uniqueKeysWithValues: totals.map {
            (Key(period: $0.periodIndex, currency: $0.currency, type: $0.type, status: $0.status), $0.summary)
        })
        #expect(actual == expected)
        // Above 2^31 in total: every digit is kept.
        #expect(actual.values.map(\.turnover).reduce(0, +) == written.map(\.amount).reduce(0, +))
        let usdOnly = try await fixture.store.transactionTotals(
            merchantID: fixture.merchantID, periods: periods, selection: StatisticsSelection(currency: try Currency(code: "USD")))
        #expect(usdOnly.allSatisfy { $0.currency == "USD" } && !usdOnly.isEmpty)
        #expect(try await fixture.store.transactionTotals(merchantID: fixture.merchantID, periods: [], selection: StatisticsSelection()).isEmpty)
    }

    @Test func totalsSumWhatCapturesRefundsAndVoidsTookFromThePayments() async throws {
        let fixture = try await StoreFixture()
        let at = Self.start.addingTimeInterval(3600)
        func payment(_ type: TransactionType, _ amount: Int64) async throws -> Transaction {
            var transaction = Transaction(
                id: Transaction.makeID(at: at), merchantID: fixture.merchantID, type: type, amount: amount, currency: try Currency(code: "USD"),
                gateway: "sandbox", now: at)
            try await fixture.store.insertTransaction(
                transaction, audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "x", objectType: "transaction", objectID: transaction.id))
            transaction.apply(GatewayResult(outcome: .approved, transactionID: "g-" + transaction.id), now: at)
            try await fixture.store.completeTransaction(
                transaction, parentUpdate: nil,
                audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "x", objectType: "transaction", objectID: transaction.id),
                notices: .none)
            return transaction
        }
        func followUp(_ type: TransactionType, _ amount: Int64, of parent: Transaction) async throws {
            var child = Transaction(
                id: Transaction.makeID(at: at), merchantID: fixture.merchantID, type: type, amount: amount, currency: parent.currency,
                gateway: "sandbox", now: at)
            child.parentID = parent.id
            let audit = AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "x", objectType: "transaction", objectID: child.id)
            try await fixture.store.insertFollowUp(child, check: { _, _ in }, audit: audit)
            child.apply(GatewayResult(outcome: .approved, transactionID: "g-" + child.id), now: at)
            let current = try #require(try await fixture.store.transaction(merchantID: fixture.merchantID, id: parent.id))
            try await fixture.store.completeTransaction(child, parentUpdate: .approved(child, of: current), audit: audit, notices: .none)
        }
        try await followUp(.capture, 3000, of: try await payment(.authorize, 5000))
        try await followUp(.refund, 400, of: try await payment(.sale, 1500))
        try await followUp(.void, 250, of: try await payment(.sale, 1000))
        let period = StatisticsPeriod(
            label: "d", firstDay: CivilDate(dayNumber: 0), lastDay: CivilDate(dayNumber: 0), start: Self.start, end: Self.start.addingTimeInterval(86_400))
        let totals = try await fixture.store.transactionTotals(merchantID: fixture.merchantID, periods: [period], selection: StatisticsSelection())
        func row(_ type: TransactionType, _ status: TransactionStatus) -> StatisticsTotals? {
            totals.first { $0.type == type && $0.status == status }
        }
        #expect(row(.authorize, .captured)?.summary.turnover == 5000)
        #expect(row(.authorize, .captured)?.followUps == FollowUpAmounts(captured: 3000))
        #expect(row(.sale, .partiallyRefunded)?.followUps == FollowUpAmounts(refunded: 400))
        #expect(row(.sale, .approved)?.followUps == FollowUpAmounts(voided: 250))
        #expect(row(.capture, .approved)?.summary.turnover == 3000)
    }

    @Test func theTextMatchesAStoredCardsHolderNameThroughTheBlindIndexAndALocalDay() async throws {
        let fixture = try await StoreFixture()
        let named = try await fixture.cards.register(
            SecureCardRegistration(
                merchantReference: "ada", source: CardSource(method: "ocr", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace")),
                verify: false),
            merchant: fixture.merchant, actor: "test", now: Date())
        func record(_ at: String, card: String?) async throws -> Transaction {
            var transaction = Transaction(
                id: Transaction.makeID(at: Timestamp.parse(at)!), merchantID: fixture.merchantID, type: .sale, amount: 100,
                currency: try Currency(code: "USD"), gateway: "sandbox", now: Timestamp.parse(at)!)
            transaction.secureCardReference = card
            try await fixture.store.insertTransaction(
                transaction, audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "x", objectType: "transaction", objectID: transaction.id))
            return transaction
        }
        let byName = try await record("2027-01-01T10:00:00.000Z", card: named.reference)
        let unnamed = try await record("2027-01-02T10:00:00.000Z", card: fixture.card.reference)
        func search(_ filter: TransactionFilter) async throws -> [String] {
            try await fixture.store.transactions(merchantID: fixture.merchantID, filter: filter, beforeSequence: nil, limit: 10).map(\.id)
        }
        var filter = TransactionFilter(text: "ada lovelace")
        filter.textNameMACs = try await fixture.cards.holderNameMACs(of: "ada lovelace", merchantID: fixture.merchantID)
        #expect(try await search(filter) == [byName.id])
        filter.textNameMACs = try await fixture.cards.holderNameMACs(of: "ada hopper", merchantID: fixture.merchantID)
        #expect(try await search(filter).isEmpty)
        var day = TransactionFilter(text: "2027-01-02")
        day.textDay = Timestamp.parse("2027-01-02T00:00:00.000Z")!..<Timestamp.parse("2027-01-03T00:00:00.000Z")!
        #expect(try await search(day) == [unnamed.id])
        day.textDay = Timestamp.parse("2027-01-02T10:00:00.001Z")!..<Timestamp.parse("2027-01-03T00:00:00.000Z")!
        #expect(try await search(day).isEmpty)
    }

    @Test func searchFindsAnAmountADescriptionIgnoringCaseAndAReferencePrefixAndPagesBySequence() async throws {
        let fixture = try await StoreFixture()
        var written = try await Self.seed(fixture)
        var exact = written[7]
        exact.id = Transaction.makeID()
        exact.idempotencyKey = "exact"
        exact.amount = 1999
        exact.currency = try Currency(code: "EUR")
        try await fixture.store.insertTransaction(
            exact, audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "transaction.created", objectType: "transaction", objectID: exact.id))
        written.append(exact)
        let byAmount = try await fixture.store.transactions(
            merchantID: fixture.merchantID, filter: TransactionFilter(text: "19.99"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(byAmount.map(\.id) == [exact.id])
        let byDescription = try await fixture.store.transactions(
            merchantID: fixture.merchantID, filter: TransactionFilter(text: "gold member"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(byDescription.map(\.id) == [written[42].id])
        let byReference = try await fixture.store.transactions(
            merchantID: fixture.merchantID, filter: TransactionFilter(text: "order-29"), order: .oldestFirst, afterSequence: nil, limit: 100)
        #expect(byReference.map(\.merchantReference) == ["Order-29", "Order-290", "Order-291", "Order-292", "Order-293", "Order-294",
                                                          "Order-295", "Order-296", "Order-297", "Order-298", "Order-299"])
        // A wildcard in the text is literal.
        let literal = try await fixture.store.transactions(
            merchantID: fixture.merchantID, filter: TransactionFilter(text: "order_1%"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(literal.isEmpty)
        // Keyset pages: newest first, every row once.
        var seen: [String] = []
        var cursor: Int64?
        while true {
            let page = try await fixture.store.transactions(
                merchantID: fixture.merchantID, filter: TransactionFilter(), order: .newestFirst, afterSequence: cursor, limit: 64)
            if page.isEmpty { break }
            seen += page.map(\.id)
            cursor = page.last?.sequence
        }
        #expect(seen == written.reversed().map(\.id))
    }

    /// A bounded search window: the transaction `offset` places after a cursor in either order is found
    /// on the merchant's own rows (another merchant's rows take no place), nil past the end; a search
    /// given that stop sees only the rows before it.
    @Test func aSearchWindowEndsAtTheTransactionThatManyPlacesOnAndTheSearchStaysInside() async throws {
        let fixture = try await StoreFixture()
        let written = try await Self.seed(fixture)
        let other = try await fixture.merchants.create(
            name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test"
        ).merchant.id
        for index in 0..<5 {
            var transaction = Transaction(
                id: Transaction.makeID(), merchantID: other, type: .sale, amount: Int64(index + 1), currency: try Currency(code: "USD"),
                gateway: "sandbox", now: Self.start, idempotencyKey: "other-\(index)", orderReference: "x\(index)")
            transaction.description = "plan"
            try await fixture.store.insertTransaction(
                transaction, audit: AuditEntry(merchantID: other, actor: "test", action: "transaction.created", objectType: "transaction", objectID: transaction.id))
        }
        let sequences = try await fixture.store.transactions(
            merchantID: fixture.merchantID, filter: TransactionFilter(), order: .oldestFirst, afterSequence: nil, limit: 1000
        ).map(\.sequence)
        #expect(sequences.count == written.count)
        let store = fixture.store
        func stop(_ order: TransactionSortOrder, after: Int64?, offset: Int) async throws -> Int64? {
            try await store.transactionSequence(merchantID: fixture.merchantID, order: order, afterSequence: after, offset: offset)
        }
        #expect(try await stop(.oldestFirst, after: nil, offset: 0) == sequences[0])
        #expect(try await stop(.oldestFirst, after: nil, offset: 10) == sequences[10])
        #expect(try await stop(.oldestFirst, after: sequences[99], offset: 10) == sequences[110])
        #expect(try await stop(.newestFirst, after: nil, offset: 10) == sequences[289])
        #expect(try await stop(.newestFirst, after: sequences[100], offset: 10) == sequences[89])
        #expect(try await stop(.oldestFirst, after: sequences[289], offset: 10) == nil)
        #expect(try await stop(.newestFirst, after: sequences[5], offset: 5) == nil)

        var filter = TransactionFilter(text: "plan")
        filter.windowStop = sequences[110]
        let inside = try await store.transactions(merchantID: fixture.merchantID, filter: filter, order: .oldestFirst, afterSequence: sequences[99], limit: 100)
        #expect(inside.map(\.sequence) == Array(sequences[100..<110]))
        filter.windowStop = sequences[89]
        let backwards = try await store.transactions(merchantID: fixture.merchantID, filter: filter, order: .newestFirst, afterSequence: sequences[100], limit: 100)
        #expect(backwards.map(\.sequence) == Array(sequences[90..<100].reversed()))
    }

    @Test func filteredPagesOldestFirstGiveEveryMatchingRowOnceWhileOthersAreRecorded() async throws {
        let fixture = try await StoreFixture()
        var expected: [String] = []
        for index in 0..<40 {
            let transaction = try await fixture.transaction(status: index % 2 == 0 ? .approved : .declined, amount: Int64(100 + index))
            if index % 2 == 0 { expected.append(transaction.id) }
        }
        let filter = TransactionFilter(status: .approved, minimumAmount: 100, maximumAmount: 200, currency: try Currency(code: "EUR"))
        var seen: [String] = []
        var cursor: Int64?
        while true {
            let page = try await fixture.store.transactions(
                merchantID: fixture.merchantID, filter: filter, order: .oldestFirst, afterSequence: cursor, limit: 3)
            if page.isEmpty { break }
            #expect(page.allSatisfy { $0.status == .approved })
            seen += page.map(\.id)
            cursor = page.last?.sequence
            // Recorded between pages: the oldest-first walk reaches them at the end, once.
            if seen.count <= 6 { expected.append(try await fixture.transaction(status: .approved, amount: 150).id) }
        }
        #expect(seen == expected)
        let otherMerchant = try await fixture.store.transactions(
            merchantID: "mer_other", filter: TransactionFilter(), order: .oldestFirst, afterSequence: nil, limit: 100)
        #expect(otherMerchant.isEmpty)
    }
}
