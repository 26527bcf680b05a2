import NIOCore
import PostgresNIO

extension PostgresQuery.StringInterpolation {
    /// `value`, or for nil a NULL cast to its Swift type's SQL type (`$3::TEXT`).
    ///
    /// postgres-nio binds nil as a parameter of no type, which the server types from the
    /// statement's context when it parses it. An unnamed statement is parsed at every execution,
    /// but a statement prepared once per connection (`rows(prepared:logger:)`) keeps the types of
    /// its first execution: a nil typed `integer` by its context, followed by an `Int` (sent as
    /// `bigint`) at a later execution, would be refused. With the cast, the parameter has the type
    /// a non-nil value would give it, and each pattern of nils has a text, so a prepared
    /// statement, of its own. Chosen over postgres-nio's overloads for every optional of a type
    /// with a static SQL type; one whose type has no SQL name (or `"char"`, which SQL spells
    /// otherwise) is bound as postgres-nio binds it.
    mutating func appendInterpolation<Value: PostgresNonThrowingEncodable>(_ value: Value?) {
        guard let value else {
            appendInterpolation(UntypedNull?.none)
            if let name = PostgresQuery.nullCastName(of: Value.psqlType) { appendLiteral("::" + name) }
            return
        }
        appendInterpolation(value)
    }
}

extension PostgresQuery {
    /// The SQL name to cast a NULL parameter of `type` to, or nil to leave it untyped.
    static func nullCastName(of type: PostgresDataType) -> String? {
        guard type != .char, type != .charArray, type != .null else { return nil }
        return type.knownSQLName
    }
}

/// A type no value has, to reach postgres-nio's own binding of nil (`appendNull`, not public).
struct UntypedNull: PostgresDynamicTypeEncodable {
    var psqlType: PostgresDataType { .null }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {}
}
