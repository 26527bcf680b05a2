import Foundation
import Payments
import PostgresNIO
@testable import Scheduler
import Testing
import Vault
@testable import VaultPostgres

/// Totals aggregated by PostgreSQL (`sum` of `bigint` is `numeric` there, cast back) equal the
/// sums the test computes from the rows it wrote; searches read amounts and ignore ASCII case.
@Suite(.enabled(if: BillingDatabase.available, "needs VAULT_TEST_DATABASE_URL"))
struct PostgresTransactionTotalsTests {
    static let start = Timestamp.parse("2027-01-01T00:00:00.000Z")!

    /// 300 transactions over three days, two currencies, three statuses, two types.
    static func seed(_ database: BillingDatabase) async throws -> [Transaction] {
        var generator = SystemRandomNumberGenerator()
        var written: [Transaction] = []
        for index in 0..<300 {
            let createdAt = start.addingTimeInterval(Double(index) * 864)  // 100 a day
            var transaction = Transaction(
                id: Transaction.makeID(at: createdAt), merchantID: database.merchantID, type: index % 5 == 0 ? .authorize : .sale,
                amount: Int64.random(in: 1...5_000_000_000, using: &generator), currency: try Currency(code: index % 3 == 0 ? "USD" : "EUR"),
                gateway: "sandbox", now: createdAt, idempotencyKey: "k\(index)", orderReference: "o\(index)")
            transaction.status = [TransactionStatus.approved, .declined, .error][index % 7 % 3]
            transaction.description = index == 42 ? "Gold Membership" : "plan"
            transaction.merchantReference = "Order-\(index)"
            try await database.store.insertTransaction(
                transaction,
                audit: AuditEntry(merchantID: database.merchantID, actor: "test", action: "transaction.created", objectType: "transaction",
                                  objectID: transaction.id))
            written.append(transaction)
        }
        return written
    }

    @Test func totalsPerPeriodCurrencyTypeAndStatusEqualTheSumsOfTheRows() async throws {
        let database = try await BillingDatabase()
        let written = try await Self.seed(database)
        let day: TimeInterval = 86_400
        let periods = (0..<3).map { index in
            StatisticsPeriod(
                label: "d\(index)", firstDay: CivilDate(dayNumber: 0), lastDay: CivilDate(dayNumber: 0),
                start: Self.start.addingTimeInterval(Double(index) * day), end: Self.start.addingTimeInterval(Double(index + 1) * day))
        }
        let totals = try await database.store.transactionTotals(merchantID: database.merchantID, periods: periods, selection: StatisticsSelection())
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
        // Above 2^31 in total: the cast keeps every digit.
        #expect(actual.values.map(\.turnover).reduce(0, +) == written.map(\.amount).reduce(0, +))
        let usdOnly = try await database.store.transactionTotals(
            merchantID: database.merchantID, periods: periods, selection: StatisticsSelection(currency: try Currency(code: "USD")))
        #expect(usdOnly.allSatisfy { $0.currency == "USD" } && !usdOnly.isEmpty)
        #expect(try await database.store.transactionTotals(merchantID: database.merchantID, periods: [], selection: StatisticsSelection()).isEmpty)
        await database.drop()
    }

    @Test func dueTotalsPerCurrencyEqualTheSumsOfTheDueSteps() async throws {
        let database = try await BillingDatabase()
        let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!
        let euro = try await database.schedules(3, stepsEach: 4, due: due)
        let dollars = try await database.schedules(2, stepsEach: 3, due: due, currency: "USD")
        try await database.schedules(1, stepsEach: 5, due: due.addingTimeInterval(86_400 * 10))  // not due yet
        let totals = try await database.store.dueStepTotals(asOf: due.addingTimeInterval(3600), merchantID: nil)
        #expect(totals.count == euro.count + dollars.count)
        #expect(totals.totals == ["EUR": euro.map(\.amount).reduce(0, +), "USD": dollars.map(\.amount).reduce(0, +)])
        let none = try await database.store.dueStepTotals(asOf: due.addingTimeInterval(3600), merchantID: "mer_other")
        #expect(none.count == 0 && none.totals.isEmpty)
        await database.drop()
    }

    @Test func searchFindsAnAmountADescriptionIgnoringCaseAndAReferencePrefixAndPagesBySequence() async throws {
        let database = try await BillingDatabase()
        var written = try await Self.seed(database)
        var exact = written[7]
        exact.id = Transaction.makeID()
        exact.idempotencyKey = "exact"
        exact.amount = 1999
        exact.currency = try Currency(code: "EUR")
        try await database.store.insertTransaction(
            exact, audit: AuditEntry(merchantID: database.merchantID, actor: "test", action: "transaction.created", objectType: "transaction", objectID: exact.id))
        written.append(exact)
        let byAmount = try await database.store.transactions(
            merchantID: database.merchantID, filter: TransactionFilter(text: "19.99"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(byAmount.map(\.id) == [exact.id])
        let byDescription = try await database.store.transactions(
            merchantID: database.merchantID, filter: TransactionFilter(text: "gold member"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(byDescription.map(\.id) == [written[42].id])
        let byReference = try await database.store.transactions(
            merchantID: database.merchantID, filter: TransactionFilter(text: "order-29"), order: .oldestFirst, afterSequence: nil, limit: 100)
        #expect(byReference.map(\.merchantReference) == ["Order-29", "Order-290", "Order-291", "Order-292", "Order-293", "Order-294",
                                                          "Order-295", "Order-296", "Order-297", "Order-298", "Order-299"])
        // A wildcard in the text is literal.
        let literal = try await database.store.transactions(
            merchantID: database.merchantID, filter: TransactionFilter(text: "order_1%"), order: .newestFirst, afterSequence: nil, limit: 100)
        #expect(literal.isEmpty)
        // Keyset pages: newest first, every row once.
        var seen: [String] = []
        var cursor: Int64?
        while true {
            let page = try await database.store.transactions(
                merchantID: database.merchantID, filter: TransactionFilter(), order: .newestFirst, afterSequence: cursor, limit: 64)
            if page.isEmpty { break }
            seen += page.map(\.id)
            cursor = page.last?.sequence
        }
        #expect(seen == written.reversed().map(\.id))
        await database.drop()
    }
}
