/// One SQL statement with its arguments, written as a string literal whose interpolations bind.
///
/// Every `\(value)` in the literal becomes a `?` parameter bound to that value, so a value sits
/// where it is used in the text and cannot drift from its placeholder, and no value is ever pasted
/// into the SQL (the way postgres-nio's `PostgresQuery` binds):
///
/// ```swift
/// try connection.run("UPDATE schedules SET status = \(status) WHERE id = \(id)")
/// ```
///
/// Text that is SQL and not a value is pasted only when asked for by name, `\(unescaped:)`, and
/// only code-owned text (column lists, conditions built from counts) belongs there. A fragment
/// interpolated as `\(fragment)`, or appended with `+=`, brings its own arguments in order, so a
/// statement built from optional conditions binds as it reads. `\(list:)` binds each element of a
/// collection, comma-separated, for `IN (...)`. A `nil` optional binds `NULL`.
public struct SQLiteQuery: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The statement text, with a `?` where each argument binds: the statement cache's key.
    public private(set) var text: SQLText
    /// The arguments, in the order of their `?` in `sql`.
    public private(set) var arguments: [SQLiteValue]

    /// The statement text as a `String` (made from `text` when asked for).
    public var sql: String { text.string }

    public init(stringLiteral sql: StaticString) {
        self.text = SQLText()
        self.text.append(sql)
        self.arguments = []
    }

    /// A statement of `sql`, text the code owns and not a value (as `\(unescaped:)`), with no
    /// arguments.
    public init(unescaped sql: String) {
        self.text = SQLText(sql)
        self.arguments = []
    }

    public init(stringInterpolation: StringInterpolation) {
        self.text = stringInterpolation.text
        self.arguments = stringInterpolation.arguments
    }

    /// Appends `fragment`'s text and arguments, as a condition added to a statement being built.
    public mutating func append(_ fragment: SQLiteQuery) {
        text.append(fragment.text)
        arguments += fragment.arguments
    }

    /// Appends ` AND ` and the condition `value` gives, when `value` is given: the optional filters
    /// of a search (`GET /v1/transactions`, `GET /v1/audit-events`), each bound, never SQL text.
    public mutating func and<Value>(_ value: Value?, _ condition: (Value) -> SQLiteQuery) {
        guard let value else { return }
        text.append(" AND " as StaticString)
        append(condition(value))
    }

    /// `query` followed by `fragment`, each with its arguments.
    public static func + (query: SQLiteQuery, fragment: SQLiteQuery) -> SQLiteQuery {
        var joined = query
        joined.append(fragment)
        return joined
    }

    /// Appends `fragment` to `query`, each with its arguments.
    public static func += (query: inout SQLiteQuery, fragment: SQLiteQuery) {
        query.append(fragment)
    }

    /// Builds an `SQLiteQuery` from literal text and interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text: SQLText
        var arguments: [SQLiteValue]

        public init(literalCapacity: Int, interpolationCount: Int) {
            text = SQLText(capacity: literalCapacity + interpolationCount)
            arguments = []
            arguments.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            text.append(literal)
        }

        /// Binds `value` to a `?` written in its place.
        public mutating func appendInterpolation(_ value: some SQLiteBindable) {
            text.appendPlaceholder()
            arguments.append(value.sqliteValue)
        }

        /// Binds `value`, or `NULL` when it is `nil`, to a `?` written in its place.
        public mutating func appendInterpolation<Value: SQLiteBindable>(_ value: Value?) {
            text.appendPlaceholder()
            arguments.append(value?.sqliteValue ?? .null)
        }

        /// Binds each element of `values` to its own `?`, comma-separated (`IN (\(list: ids))`).
        ///
        /// An empty collection writes nothing, so the caller decides what an empty `IN` means.
        public mutating func appendInterpolation<Values: Collection>(list values: Values) where Values.Element: SQLiteBindable {
            var first = true
            for value in values {
                if first { text.appendPlaceholder() } else { text.appendListedPlaceholder() }
                first = false
                arguments.append(value.sqliteValue)
            }
        }

        /// Pastes another statement's text with its arguments, in place.
        public mutating func appendInterpolation(_ fragment: SQLiteQuery) {
            text.append(fragment.text)
            arguments += fragment.arguments
        }

        /// Pastes `sql` into the statement as SQL text: only for text the code owns (a column list,
        /// a table name, a condition built from a count), never for a value.
        public mutating func appendInterpolation(unescaped sql: String) {
            text.append(sql)
        }
    }
}
