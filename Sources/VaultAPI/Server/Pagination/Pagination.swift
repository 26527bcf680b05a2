import Foundation
import Hummingbird
import HummingbirdCore
import Vault

/// `?limit=` (1-100, default 20) and `?cursor=` of every list route.
public struct PageRequest: Sendable {
    /// Items per page.
    public var limit: Int
    /// The position after which this page starts, as the route's own sort key.
    public var after: String?

    /// Reads and checks the query; 422 naming `limit` or `cursor` when malformed. A cursor is taken
    /// only when `cursors` (the merchant's, for this list) opens it.
    init(query: URI, cursors: ListCursors) throws {
        let parameters = query.queryParameters
        if let text = parameters["limit"] {
            guard let value = Int(String(text)), (1...100).contains(value) else {
                throw APIError.invalid("limit must be an integer from 1 to 100.", code: "invalid_limit", param: "limit")
            }
            limit = value
        } else {
            limit = 20
        }
        if let cursor = parameters["cursor"], !cursor.isEmpty {
            guard let position = cursors.position(of: String(cursor)) else { throw Self.invalidCursor }
            after = position
        }
    }

    /// The cursor's position as an insertion sequence (the sort key of most lists); 422 when it is not one.
    public var afterSequence: Int64? {
        get throws {
            guard let after else { return nil }
            guard let sequence = Int64(after) else { throw Self.invalidCursor }
            return sequence
        }
    }

    private static let invalidCursor = APIError.invalid(
        "cursor is not a cursor this API returned for this list.", code: "invalid_cursor", param: "cursor")
}

/// One page of a list: `{"data": [...], "nextCursor": ...}`.
public struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
    /// The items.
    public var data: [Item]
    /// Where the next page starts; null on the last page.
    @ExplicitNull public var nextCursor: String?

    /// A page from up to `limit + 1` fetched items: the extra one only says there is more.
    /// `cursor` makes the opaque cursor after an item (``ListCursors/cursor(after:)`` of its sort key).
    public init(fetched: [Item], limit: Int, cursor: (Item) throws -> String) rethrows {
        if fetched.count > limit {
            data = Array(fetched.prefix(limit))
            nextCursor = try data.last.map(cursor)
        } else {
            data = fetched
            nextCursor = nil
        }
    }
}
