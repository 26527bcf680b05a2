/// A stored row this build cannot read: a value written by a newer build (an enum case it does
/// not know) or damaged (a timestamp that does not parse).
///
/// Several builds may share one database during a rolling upgrade, so decoding never guesses a
/// default for such a value: the row fails, and the error names where it is. It never carries a
/// secret: `value` is only set for enum, timestamp, date and code columns; free text, JSON
/// documents and sealed data are reported as unreadable without their content.
public enum StoredRowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Column `column` of row `id` of `table` holds `value` (nil when not echoed), which this build cannot read.
    case unreadable(table: String, id: String, column: String, value: String?)

    /// `row sch_1 of schedules: column status holds "frozen", which this build cannot read`.
    ///
    /// Someone with write access to the database chooses what an unreadable column holds, and this
    /// text goes to the log: the id and value are cut to ``shownLength`` characters and any card
    /// number in them is masked, so a planted value cannot carry card data into the logs.
    public var description: String {
        switch self {
        case .unreadable(let table, let id, let column, let value):
            let held = value.map { "holds \"\(Self.shown($0))\"" } ?? "holds a value"
            return "row \(Self.shown(id)) of \(table): column \(column) \(held), which this build cannot read"
        }
    }

    /// The most characters of a row id or value the description shows.
    public static let shownLength = 64

    private static func shown(_ text: String) -> String {
        let cut = text.count > shownLength ? String(text.prefix(shownLength)) + "…" : text
        return CardNumberShape.masked(cut)
    }
}
