public import PostgresNIO

/// A query assembled from optional conditions (list filters): each value is bound where its
/// placeholder is written (`bind` returns the `$n`), as `PostgresQuery` interpolation does.
public struct PostgresQueryBuilder {
    private var sql: String
    private var binds = PostgresBindings()

    /// Starts with `sql` (no placeholders).
    public init(_ sql: String) {
        self.sql = sql
    }

    /// Binds `value` and returns its placeholder.
    public mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// Appends SQL text (placeholders from `bind`).
    public mutating func append(_ text: String) {
        sql += text
    }

    /// Appends ` AND <condition>` with `value` bound, when `value` is not nil.
    public mutating func and<Value: PostgresDynamicTypeEncodable>(_ condition: (String) -> String, _ value: Value?) {
        guard let value else { return }
        sql += " AND " + condition(bind(value))
    }

    /// The query.
    public var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}
