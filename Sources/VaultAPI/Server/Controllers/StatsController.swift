import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// `GET /v1/stats`: the merchant's payments per period (`groupBy` day, month, quarter or year on the
/// merchant's calendar) and currency: `turnover` is approved sales and captures less approved refunds;
/// `count`, `min`, `max` and `average` describe the approved payments; `byStatus` gives per status of the
/// selected types (declined, voided and failed ones included), apart from the turnover, the count and
/// `amount` (the payments' own amounts: an authorization's authorized amount) and what captures,
/// refunds and voids took from them (`capturedAmount`, `refundedAmount`, `voidedAmount`).
///
/// `from` and `to` are required local dates (inclusive). Every period between them is answered,
/// empty ones included. Without `currency` the figures are split per currency (amounts of different
/// currencies are never added); with it, only that currency is reported.
struct StatsController {
    let store: any TransactionStore

    func addRoutes(to api: APIRoutes) {
        api.admitting(.admin, .readonly).get("stats") { request, context in
            let parameters = request.uri.queryParameters
            guard let from = try QueryParameter.date("from", in: parameters) else {
                throw APIError.invalid("from is required (a date, yyyy-MM-dd).", code: "required", param: "from")
            }
            guard let to = try QueryParameter.date("to", in: parameters) else {
                throw APIError.invalid("to is required (a date, yyyy-MM-dd).", code: "required", param: "to")
            }
            var grouping = StatisticsGrouping.day
            if let text = parameters["groupBy"] {
                guard let value = StatisticsGrouping(rawValue: String(text)) else {
                    throw APIError.invalid("groupBy must be day, month, quarter or year.", code: "invalid_value", param: "groupBy")
                }
                grouping = value
            }
            let currency = try QueryParameter.currency("currency", in: parameters)
            var selection = StatisticsSelection(currency: currency)
            if let text = parameters["type"] {
                guard let type = TransactionType(rawValue: String(text)) else {
                    throw APIError.invalid("type is not a transaction type.", code: "invalid_value", param: "type")
                }
                selection = .only(type, currency: currency)
            }
            let statistics = try await TransactionStatistics.compute(
                merchant: context.merchant, from: from, to: to, grouping: grouping, selection: selection, store: store)
            return try JSONCoding.response(StatisticsResponse(statistics))
        }
    }
}

/// The JSON of `GET /v1/stats`.
struct StatisticsResponse: Encodable {
    /// One status's figures, each named for what it sums.
    struct Figures: Encodable {
        var count: Int64
        /// The payments' own amounts (an authorization's authorized amount), not money taken.
        var amount: Int64
        @ExplicitNull var min: Int64?
        @ExplicitNull var max: Int64?
        @ExplicitNull var average: Int64?
        var capturedAmount: Int64
        var refundedAmount: Int64
        var voidedAmount: Int64

        init(_ figures: StatusStatistics) {
            count = figures.amounts.count
            amount = figures.amounts.turnover
            min = figures.amounts.minimum
            max = figures.amounts.maximum
            average = figures.amounts.average
            capturedAmount = figures.followUps.captured
            refundedAmount = figures.followUps.refunded
            voidedAmount = figures.followUps.voided
        }
    }

    struct CurrencyFigures: Encodable {
        var currency: String
        var count: Int64
        var turnover: Int64
        @ExplicitNull var min: Int64?
        @ExplicitNull var max: Int64?
        @ExplicitNull var average: Int64?
        var byStatus: [String: Figures]

        init(_ statistics: CurrencyStatistics) {
            let payments = statistics.payments
            currency = statistics.currency
            count = payments.count
            turnover = statistics.turnover
            min = payments.minimum
            max = payments.maximum
            average = payments.average
            byStatus = Dictionary(uniqueKeysWithValues: statistics.byStatus.map { ($0.key.rawValue, Figures($0.value)) })
        }
    }

    struct Group: Encodable {
        var period: String
        var from: CivilDate
        var to: CivilDate
        var startsAt: Date
        var endsAt: Date
        var byCurrency: [CurrencyFigures]
    }

    var from: CivilDate
    var to: CivilDate
    var groupBy: String
    var timeZone: String
    @ExplicitNull var currency: String?
    var types: [String]
    var currencies: [String]
    var groups: [Group]

    init(_ statistics: TransactionStatistics) {
        from = statistics.from
        to = statistics.to
        groupBy = statistics.grouping.rawValue
        timeZone = statistics.timeZone
        currency = statistics.selection.currency?.code
        types = statistics.selection.types.map(\.rawValue)
        currencies = statistics.currencies
        groups = statistics.periods.map { entry in
            Group(
                period: entry.period.label, from: entry.period.firstDay, to: entry.period.lastDay, startsAt: entry.period.start,
                endsAt: entry.period.end, byCurrency: entry.currencies.map(CurrencyFigures.init))
        }
    }
}
