import Foundation

/// Keyset paging of a console list: a page starts after the cursor (`cursor`, the store's own
/// sequence of the last row of the page before) and "Next"/"Previous" links carry it, with the
/// cursors of the pages before (`trail`) so "Previous" needs no backwards query. Every merchant the
/// operator may see is read from the same cursor and the rows merged by sequence: sequences are the
/// table's, one order across merchants, so a row is never skipped or shown twice.
struct ConsolePaging {
    /// Rows a page shows.
    static let pageSize = 50
    /// Earlier pages "Previous" can walk back through; past that it starts again from the first.
    static let maximumTrail = 200

    /// Where this page starts (nil: the first page).
    let cursor: Int64?
    /// The cursors of the pages between the first page and this one, oldest first.
    let trail: [Int64]

    /// The page `query` names; nil when its cursor or trail is not one this console wrote.
    init?(query: [String: String]) {
        guard let cursor = Self.sequence(query["cursor"]), let trail = Self.trail(query["trail"]) else { return nil }
        self.cursor = cursor
        self.trail = trail
    }

    /// A refusal of a malformed cursor, shown where the list would be.
    static let refusal: Markup = "<p class=\"notice error\" role=\"alert\">That page is not one this console links to. Start again from the first page.</p>"

    /// The query parameters of the filters a list keeps from page to page (not the paging's own).
    static func filters(_ query: [String: String]) -> [(String, String)] {
        query.filter { !["cursor", "trail"].contains($0.key) && !$0.value.isEmpty }.sorted { $0.key < $1.key }
    }

    /// "Previous" (unless this is the first page) and "Next" (when `next`, the cursor after this page's
    /// last row, is given), each keeping `query`'s filters.
    func links(path: String, query: [String: String], next: Int64?) -> Markup {
        let filters = Self.filters(query)
        var links: [Markup] = []
        if cursor != nil {
            let previous: [(String, String)] =
                trail.isEmpty ? [] : [("cursor", String(trail[trail.count - 1])), ("trail", trail.dropLast().map(String.init).joined(separator: ","))]
            links.append("<a rel=\"prev\" href=\"\(Self.href(path, filters + previous))\">Previous</a>")
        }
        if let next {
            let carried = cursor.map { Array((trail + [$0]).suffix(Self.maximumTrail)) } ?? []
            links.append(
                "<a rel=\"next\" href=\"\(Self.href(path, filters + [("cursor", String(next)), ("trail", carried.map(String.init).joined(separator: ","))]))\">Next</a>")
        }
        guard !links.isEmpty else { return "" }
        return "<nav class=\"paging\" aria-label=\"Pages\">\(Markup.joined(links, separator: " "))</nav>"
    }

    /// The rows of one page of a newest-first list merged from several merchants' pages (each read
    /// with `pageSize + 1` rows before ``cursor``), and the cursor of the next page when there is one.
    static func newestFirst<Row>(_ rows: [Row], sequence: (Row) -> Int64) -> (rows: [Row], next: Int64?) {
        let sorted = rows.sorted { sequence($0) > sequence($1) }
        guard sorted.count > pageSize else { return (sorted, nil) }
        let page = Array(sorted.prefix(pageSize))
        return (page, sequence(page[pageSize - 1]))
    }

    /// As ``newestFirst(_:sequence:)`` for a list in recording order (oldest first, read after ``cursor``).
    static func oldestFirst<Row>(_ rows: [Row], sequence: (Row) -> Int64) -> (rows: [Row], next: Int64?) {
        let sorted = rows.sorted { sequence($0) < sequence($1) }
        guard sorted.count > pageSize else { return (sorted, nil) }
        let page = Array(sorted.prefix(pageSize))
        return (page, sequence(page[pageSize - 1]))
    }

    private static func href(_ path: String, _ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let pairs = fields.filter { !$0.1.isEmpty }.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// `.some(nil)` for no cursor, `.some(value)` for a positive sequence, nil for anything else.
    private static func sequence(_ text: String?) -> Int64?? {
        guard let text, !text.isEmpty else { return .some(nil) }
        guard text.count <= 19, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(text), value > 0 else { return nil }
        return .some(value)
    }

    private static func trail(_ text: String?) -> [Int64]? {
        guard let text, !text.isEmpty else { return [] }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= maximumTrail else { return nil }
        var values: [Int64] = []
        for part in parts {
            guard let value = sequence(String(part)), let value else { return nil }
            values.append(value)
        }
        return values
    }
}
