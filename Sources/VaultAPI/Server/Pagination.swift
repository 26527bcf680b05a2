import Foundation
import Hummingbird
public import HummingbirdCore
import Vault

/// `?limit=` (1-100, default 20) and `?cursor=` of every list route.
public struct PageRequest: Sendable {
    /// Items per page.
    public var limit: Int
    /// The position after which this page starts, as the route's own sort key.
    public var after: String?

    /// Reads and checks the query; 422 naming `limit` or `cursor` when malformed.
    public init(query: URI) throws {
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
            guard let decoded = Self.decode(String(cursor)) else {
                throw APIError.invalid("cursor is not a cursor this API returned.", code: "invalid_cursor", param: "cursor")
            }
            after = decoded
        }
    }

    /// The cursor's position as an insertion sequence (the sort key of most lists); 422 when it is not one.
    public var afterSequence: Int64? {
        get throws {
            guard let after else { return nil }
            guard let sequence = Int64(after) else {
                throw APIError.invalid("cursor is not a cursor this API returned.", code: "invalid_cursor", param: "cursor")
            }
            return sequence
        }
    }

    /// The opaque cursor for a sort key.
    public static func cursor(after key: String) -> String {
        var text = Encoding.base64(Array(("c1:" + key).utf8))
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    private static func decode(_ cursor: String) -> String? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let bytes = try? Encoding.fromBase64(text), let decoded = String(validating: bytes, as: UTF8.self),
            decoded.hasPrefix("c1:")
        else { return nil }
        return String(decoded.dropFirst(3))
    }
}

/// One page of a list: `{"data": [...], "nextCursor": ...}`.
public struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
    /// The items.
    public var data: [Item]
    /// Where the next page starts; null on the last page.
    @ExplicitNull public var nextCursor: String?

    /// A page from up to `limit + 1` fetched items: the extra one only says there is more.
    public init(fetched: [Item], limit: Int, sortKey: (Item) -> String) {
        if fetched.count > limit {
            data = Array(fetched.prefix(limit))
            nextCursor = data.last.map { PageRequest.cursor(after: sortKey($0)) }
        } else {
            data = fetched
            nextCursor = nil
        }
    }
}
