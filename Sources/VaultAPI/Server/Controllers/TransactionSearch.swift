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

    /// Reads the query; a 422 naming the parameter for any malformed value. The filter is read by
    /// ``TransactionFilter/init(query:zone:)``, as the console reads its search.
    init(parameters: Parameters, page: PageRequest, merchant: Merchant) throws {
        var first: [String: String] = [:]
        for (name, value) in parameters where first[String(name)] == nil { first[String(name)] = String(value) }
        do {
            filter = try TransactionFilter(query: first, zone: merchant.zone)
        } catch {
            throw APIError.invalid(error.message, code: error.code, param: error.parameter)
        }
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
