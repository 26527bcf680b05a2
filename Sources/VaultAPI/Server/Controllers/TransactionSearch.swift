import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// The query of `GET /v1/transactions`, checked: the filters, the sort order and where the page starts.
///
/// Cursors carry the sort direction with the keyset position (`seq`), so a cursor of a newest-first
/// listing cannot be replayed against an oldest-first one (422 `invalid_cursor`).
struct TransactionSearch {
    var filter = TransactionFilter()
    var order = TransactionSortOrder.newestFirst
    var afterSequence: Int64?

    /// Reads the query; a 422 naming the parameter for any malformed value.
    init(parameters: Parameters, page: PageRequest, merchant: Merchant) throws {
        if let text = parameters["status"] {
            guard let status = TransactionStatus(rawValue: String(text)) else {
                throw APIError.invalid("status is not a transaction status.", code: "invalid_value", param: "status")
            }
            filter.status = status
        }
        if let text = parameters["type"] {
            guard let type = TransactionType(rawValue: String(text)) else {
                throw APIError.invalid("type is not a transaction type.", code: "invalid_value", param: "type")
            }
            filter.type = type
        }
        filter.scheduleID = parameters["scheduleId"].map(String.init)
        filter.secureCardReference = parameters["secureCardReference"].map(String.init)
        try readDates(parameters, merchant: merchant)
        filter.minimumAmount = try QueryParameter.amount("minAmount", in: parameters)
        filter.maximumAmount = try QueryParameter.amount("maxAmount", in: parameters)
        if let minimum = filter.minimumAmount, let maximum = filter.maximumAmount, maximum < minimum {
            throw APIError.invalid("maxAmount must not be below minAmount.", code: "invalid_range", param: "maxAmount")
        }
        filter.currency = try QueryParameter.currency("currency", in: parameters)
        filter.text = try QueryParameter.text("q", in: parameters)
        if let text = parameters["sort"] {
            switch text {
            case "-createdAt": order = .newestFirst
            case "createdAt": order = .oldestFirst
            default: throw APIError.invalid("sort must be createdAt or -createdAt.", code: "invalid_value", param: "sort")
            }
        }
        if let key = page.after {
            guard let sequence = Self.sequence(fromCursorKey: key, order: order) else {
                throw APIError.invalid(
                    "cursor is not a cursor this API returned for this sort order.", code: "invalid_cursor", param: "cursor")
            }
            afterSequence = sequence
        }
    }

    /// `from` and `to` are local dates of the merchant's zone, both included.
    private mutating func readDates(_ parameters: Parameters, merchant: Merchant) throws {
        let from = try QueryParameter.date("from", in: parameters)
        let to = try QueryParameter.date("to", in: parameters)
        if let from, let to, to < from {
            throw APIError.invalid("to must not be before from.", code: "invalid_range", param: "to")
        }
        guard from != nil || to != nil else { return }
        var resolver = DueInstantResolver(zone: merchant.zone)
        filter.createdFrom = from.map { resolver.instant(of: $0, at: .midnight) }
        filter.createdBefore = to.map { resolver.instant(of: $0.adding(days: 1), at: .midnight) }
    }

    /// The sort key a page's `nextCursor` encodes: direction and sequence.
    static func cursorKey(order: TransactionSortOrder, sequence: Int64) -> String {
        (order == .newestFirst ? "desc:" : "asc:") + String(sequence)
    }

    static func sequence(fromCursorKey key: String, order: TransactionSortOrder) -> Int64? {
        let prefix = order == .newestFirst ? "desc:" : "asc:"
        guard key.hasPrefix(prefix), let sequence = Int64(key.dropFirst(prefix.count)), sequence >= 0 else { return nil }
        return sequence
    }
}
