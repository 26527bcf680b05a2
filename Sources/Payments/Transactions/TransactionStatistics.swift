public import Foundation
public import Vault

/// The length of one statistics period (`groupBy`), read on the merchant's calendar.
public enum StatisticsGrouping: String, Sendable, CaseIterable {
    /// One local day.
    case day
    /// One calendar month.
    case month
    /// January-March, April-June, July-September, October-December.
    case quarter
    /// One calendar year.
    case year

    /// The longest range, in days, a `day` grouping may cover (a leap year).
    public static let maximumDays = 366
    /// The longest range, in years, the other groupings may cover.
    public static let maximumYears = 50

    /// The first day of the period after the one containing `date`.
    func start(after date: CivilDate) -> CivilDate {
        let (year, month, _) = date.components
        switch self {
        case .day: return date.adding(days: 1)
        case .month: return CivilDate.clamped(year: year, month: month, day: 1).adding(months: 1)
        case .quarter: return CivilDate.clamped(year: year, month: (month - 1) / 3 * 3 + 1, day: 1).adding(months: 3)
        case .year: return CivilDate.clamped(year: year + 1, month: 1, day: 1)
        }
    }

    /// `2027-03-31`, `2027-03`, `2027-Q1` or `2027` for the period containing `date`.
    func label(of date: CivilDate) -> String {
        let (year, month, _) = date.components
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        switch self {
        case .day: return date.iso
        case .month: return yearText + (month < 10 ? "-0" : "-") + String(month)
        case .quarter: return yearText + "-Q" + String((month - 1) / 3 + 1)
        case .year: return yearText
        }
    }
}

/// One group of a statistics answer: local dates `firstDay...lastDay` and the instants `[start, end)` they span.
public struct StatisticsPeriod: Sendable, Equatable {
    /// `2027-03-31`, `2027-03`, `2027-Q1` or `2027`.
    public var label: String
    /// The first local date counted (the period's first day, or the range's `from`).
    public var firstDay: CivilDate
    /// The last local date counted (the period's last day, or the range's `to`).
    public var lastDay: CivilDate
    /// Local midnight starting `firstDay` (inclusive).
    public var start: Date
    /// Local midnight after `lastDay` (exclusive).
    public var end: Date

    /// Creates a period.
    public init(label: String, firstDay: CivilDate, lastDay: CivilDate, start: Date, end: Date) {
        self.label = label
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.start = start
        self.end = end
    }

    /// Every period from `first` through `last` (both included), clipped to that range, with its
    /// boundaries at local midnight in `zone` (a midnight inside a DST gap moves to the gap's end).
    public static func periods(from first: CivilDate, through last: CivilDate, grouping: StatisticsGrouping, zone: TimeZone) -> [StatisticsPeriod] {
        var resolver = DueInstantResolver(zone: zone)
        var periods: [StatisticsPeriod] = []
        var day = first
        var start = resolver.instant(of: day, at: .midnight)
        while day <= last {
            let next = grouping.start(after: day)
            let lastDay = Swift.min(next.adding(days: -1), last)
            let end = resolver.instant(of: lastDay.adding(days: 1), at: .midnight)
            periods.append(StatisticsPeriod(label: grouping.label(of: day), firstDay: day, lastDay: lastDay, start: start, end: end))
            day = next
            start = end
        }
        return periods
    }
}

/// Which transactions statistics count.
public struct StatisticsSelection: Sendable, Equatable {
    /// Only this currency; nil splits the answer per currency.
    public var currency: Currency?
    /// The types counted per status; by default the payments (`sale`, `authorize`), whose status shows
    /// what became of them (captured, voided, refunded), so follow-ups are not counted twice.
    public var types: [TransactionType]
    /// The types whose money makes the turnover: by default approved sales and captures, less approved
    /// refunds (an authorization or a void moves no money).
    public var turnoverTypes: [TransactionType]

    /// Creates a selection.
    public init(currency: Currency? = nil, types: [TransactionType] = [.sale, .authorize], turnoverTypes: [TransactionType] = [.sale, .capture, .refund]) {
        self.currency = currency
        self.types = types
        self.turnoverTypes = turnoverTypes
    }

    /// Only transactions of `type`, per status and in the turnover.
    public static func only(_ type: TransactionType, currency: Currency?) -> StatisticsSelection {
        StatisticsSelection(currency: currency, types: [type], turnoverTypes: [type])
    }

    /// Whether transactions of `type` in `status` moved money, and which way: +1 for the payments (sales
    /// and captures the gateway approved, including those refunded since: their refunds count apart),
    /// -1 for approved refunds, 0 for everything else (declined, voided, failed, pending, authorizations).
    public static func direction(of type: TransactionType, status: TransactionStatus) -> Int {
        switch type {
        case .sale, .capture: [.approved, .partiallyRefunded, .refunded].contains(status) ? 1 : 0
        case .refund: status == .approved ? -1 : 0
        default: 0
        }
    }
}

/// Count, turnover (sum), minimum, maximum and average of a set of amounts, in minor units.
public struct AmountSummary: Sendable, Equatable {
    /// How many transactions.
    public var count: Int64
    /// The sum of their amounts.
    public var turnover: Int64
    /// The smallest amount; nil when `count` is 0.
    public var minimum: Int64?
    /// The largest amount; nil when `count` is 0.
    public var maximum: Int64?

    /// Creates a summary (empty by default).
    public init(count: Int64 = 0, turnover: Int64 = 0, minimum: Int64? = nil, maximum: Int64? = nil) {
        self.count = count
        self.turnover = turnover
        self.minimum = minimum
        self.maximum = maximum
    }

    /// `turnover / count` rounded half up to a whole minor unit (amounts are never negative); nil when empty.
    public var average: Int64? {
        guard count > 0 else { return nil }
        let (quotient, remainder) = turnover.quotientAndRemainder(dividingBy: count)
        return remainder * 2 >= count ? quotient + 1 : quotient
    }

    /// Adds another summary's transactions to this one (the turnover saturates rather than overflowing).
    public mutating func add(_ other: AmountSummary) {
        count += other.count
        let (sum, overflow) = turnover.addingReportingOverflow(other.turnover)
        turnover = overflow ? .max : sum
        minimum = [minimum, other.minimum].compactMap { $0 }.min()
        maximum = [maximum, other.maximum].compactMap { $0 }.max()
    }
}

/// What follow-ups took from a set of payments: the sums of their captured, refunded and voided amounts.
public struct FollowUpAmounts: Sendable, Equatable {
    /// Captured from authorizations (a sale's own amount is not a capture).
    public var captured: Int64
    /// Refunded.
    public var refunded: Int64
    /// Voided (reversed).
    public var voided: Int64

    /// Creates sums (zero by default).
    public init(captured: Int64 = 0, refunded: Int64 = 0, voided: Int64 = 0) {
        self.captured = captured
        self.refunded = refunded
        self.voided = voided
    }

    /// Adds another set's sums (each saturates rather than overflowing).
    public mutating func add(_ other: FollowUpAmounts) {
        func sum(_ a: Int64, _ b: Int64) -> Int64 {
            let (value, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : value
        }
        captured = sum(captured, other.captured)
        refunded = sum(refunded, other.refunded)
        voided = sum(voided, other.voided)
    }
}

/// The figures of the payments in one status: their amounts as asked (an authorization's authorized
/// amount) and what follow-ups took from them.
public struct StatusStatistics: Sendable, Equatable {
    /// Count, sum, smallest, largest and average of the payments' own amounts.
    public var amounts: AmountSummary
    /// What captures, refunds and voids took from them.
    public var followUps: FollowUpAmounts

    /// Creates figures (empty by default).
    public init(amounts: AmountSummary = AmountSummary(), followUps: FollowUpAmounts = FollowUpAmounts()) {
        self.amounts = amounts
        self.followUps = followUps
    }
}

/// One aggregated row of the store: the summary of one period, currency, type and status.
public struct StatisticsTotals: Sendable, Equatable {
    /// Index into the periods asked for.
    public var periodIndex: Int
    /// ISO 4217 code.
    public var currency: String
    /// The transactions' type.
    public var type: TransactionType
    /// The transactions' status.
    public var status: TransactionStatus
    /// Their amounts.
    public var summary: AmountSummary
    /// The sums of their captured, refunded and voided amounts.
    public var followUps: FollowUpAmounts

    /// Creates a row.
    public init(
        periodIndex: Int, currency: String, type: TransactionType, status: TransactionStatus, summary: AmountSummary,
        followUps: FollowUpAmounts = FollowUpAmounts()
    ) {
        self.periodIndex = periodIndex
        self.currency = currency
        self.type = type
        self.status = status
        self.summary = summary
        self.followUps = followUps
    }
}

/// The figures of one currency in one period: the money moved, and the counts per status (statuses
/// without transactions are absent).
public struct CurrencyStatistics: Sendable, Equatable {
    /// ISO 4217 code.
    public var currency: String
    /// The approved payments (sales and captures): their count, sum, smallest, largest and average.
    public var payments: AmountSummary
    /// The approved refunds' sum.
    public var refunded: Int64
    /// Per status, of the selected types (declined, voided and failed ones included).
    public var byStatus: [TransactionStatus: StatusStatistics]

    /// An empty entry for `currency`.
    public init(
        currency: String, payments: AmountSummary = AmountSummary(), refunded: Int64 = 0, byStatus: [TransactionStatus: StatusStatistics] = [:]
    ) {
        self.currency = currency
        self.payments = payments
        self.refunded = refunded
        self.byStatus = byStatus
    }

    /// Approved payments less approved refunds (negative when more was refunded than taken in the period).
    public var turnover: Int64 {
        let (net, overflow) = payments.turnover.subtractingReportingOverflow(refunded)
        return overflow ? .min : net
    }
}

/// One period with one entry per currency of the answer.
public struct PeriodStatistics: Sendable, Equatable {
    /// The period.
    public var period: StatisticsPeriod
    /// One entry per currency of the answer, in code order, empty ones included.
    public var currencies: [CurrencyStatistics]
}

/// What `GET /v1/stats` answers: every period between `from` and `to`, empty ones included, each with
/// per-currency and per-status figures.
public struct TransactionStatistics: Sendable, Equatable {
    /// The first local date counted.
    public var from: CivilDate
    /// The last local date counted.
    public var to: CivilDate
    /// The period length.
    public var grouping: StatisticsGrouping
    /// What was counted.
    public var selection: StatisticsSelection
    /// The IANA zone periods were read in (the merchant's).
    public var timeZone: String
    /// The currencies reported: the one asked for, or every currency with a counted transaction in the range.
    public var currencies: [String]
    /// Every period in order.
    public var periods: [PeriodStatistics]

    /// Checks the range: `from` not after `to`, at most 366 days for `day` and 50 years otherwise.
    /// - Throws: `TransactionError.invalid` on field `to`.
    public static func validate(from: CivilDate, to: CivilDate, grouping: StatisticsGrouping) throws(TransactionError) {
        guard from <= to else { throw TransactionError.invalid(field: "to", code: "invalid_range", message: "to must not be before from.") }
        switch grouping {
        case .day:
            guard Int(to.dayNumber) - Int(from.dayNumber) < StatisticsGrouping.maximumDays else {
                throw TransactionError.invalid(
                    field: "to", code: "range_too_long",
                    message: "groupBy=day covers at most \(StatisticsGrouping.maximumDays) days; group by month or narrow the range.")
            }
        default:
            guard to < from.adding(months: StatisticsGrouping.maximumYears * 12) else {
                throw TransactionError.invalid(
                    field: "to", code: "range_too_long", message: "Statistics cover at most \(StatisticsGrouping.maximumYears) years.")
            }
        }
    }

    /// Computes the statistics of a merchant's transactions created from `from` through `to` (local dates
    /// of the merchant's time zone); the store aggregates per period.
    /// - Throws: `TransactionError.invalid` for a bad range, or storage errors.
    public static func compute(
        merchant: Merchant, from: CivilDate, to: CivilDate, grouping: StatisticsGrouping, selection: StatisticsSelection,
        store: any TransactionStore
    ) async throws -> TransactionStatistics {
        try validate(from: from, to: to, grouping: grouping)
        let periods = StatisticsPeriod.periods(from: from, through: to, grouping: grouping, zone: merchant.zone)
        let totals = try await store.transactionTotals(merchantID: merchant.id, periods: periods, selection: selection)
        return assemble(from: from, to: to, grouping: grouping, selection: selection, timeZone: merchant.timeZone, periods: periods, totals: totals)
    }

    /// Puts the store's rows into periods and currencies, adding the empty ones.
    public static func assemble(
        from: CivilDate, to: CivilDate, grouping: StatisticsGrouping, selection: StatisticsSelection, timeZone: String,
        periods: [StatisticsPeriod], totals: [StatisticsTotals]
    ) -> TransactionStatistics {
        let currencies = selection.currency.map { [$0.code] } ?? Set(totals.map(\.currency)).sorted()
        var table = [[String: CurrencyStatistics]](repeating: [:], count: periods.count)
        for row in totals where periods.indices.contains(row.periodIndex) && currencies.contains(row.currency) {
            var entry = table[row.periodIndex][row.currency] ?? CurrencyStatistics(currency: row.currency)
            if selection.types.contains(row.type) {
                entry.byStatus[row.status, default: StatusStatistics()].amounts.add(row.summary)
                entry.byStatus[row.status, default: StatusStatistics()].followUps.add(row.followUps)
            }
            if selection.turnoverTypes.contains(row.type) {
                switch StatisticsSelection.direction(of: row.type, status: row.status) {
                case 1: entry.payments.add(row.summary)
                case -1:
                    let (sum, overflow) = entry.refunded.addingReportingOverflow(row.summary.turnover)
                    entry.refunded = overflow ? .max : sum
                default: break
                }
            }
            table[row.periodIndex][row.currency] = entry
        }
        let filled = periods.enumerated().map { index, period in
            PeriodStatistics(period: period, currencies: currencies.map { table[index][$0] ?? CurrencyStatistics(currency: $0) })
        }
        return TransactionStatistics(
            from: from, to: to, grouping: grouping, selection: selection, timeZone: timeZone, currencies: currencies, periods: filled)
    }
}
