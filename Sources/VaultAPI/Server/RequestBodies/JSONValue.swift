/// A request body's JSON, parsed once (``JSONBodyParser``) and then checked against the operation's
/// contract and decoded (``JSONValueDecoder``) from this tree, never from the bytes again.
///
/// Objects keep their members in the order the client wrote them (no key twice: the parser refuses
/// that); numbers keep their literal text, so whether `100.0` or `1e2` is a whole number of minor
/// units is decided when a field is decoded as an integer, exactly, not through a `Double`.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number as written, e.g. `-12.50e3` (already checked against the JSON grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// What a decoding error says was found instead of the expected type.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}

/// A JSON object's members in the client's order, each key once.
struct JSONObject: Sendable {
    /// The members, in the order they were written.
    var members: [JSONMember]

    /// The value of `key` (compared as Swift strings compare, as `JSONDecoder` did), or nil.
    func value(forKey key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }
}

/// One `"key": value` of an object.
struct JSONMember: Sendable {
    let key: String
    let value: JSONValue
}
