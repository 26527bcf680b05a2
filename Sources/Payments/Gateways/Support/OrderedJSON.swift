import Vault

/// A JSON value whose object members keep the order they were written in.
///
/// Authorize.Net converts its JSON to XML and validates it against an XSD `sequence`, so member
/// order is part of the wire format; dictionaries (and `JSONEncoder`) do not keep order.
indirect enum OrderedJSON: Sendable, Equatable {
    /// An object with ordered members.
    case object([(String, OrderedJSON)])
    /// An array.
    case array([OrderedJSON])
    /// A string.
    case string(String)
    /// A number, written exactly as given (e.g. `"10.00"` stays `10.00`).
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// The compact UTF-8 serialization: no spaces, members in order.
    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out)
        return out
    }

    /// The compact serialization as a string.
    var text: String { String(decoding: serialized(), as: UTF8.self) }

    private func write(into out: inout [UInt8]) {
        switch self {
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                CanonicalJSON.append(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let .array(elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .string(value):
            CanonicalJSON.append(string: value, to: &out)
        case let .number(value):
            out.append(contentsOf: value.utf8)
        case let .bool(value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            out.append(contentsOf: "null".utf8)
        }
    }
}

/// Builds an ordered JSON object, skipping members whose value is `nil`.
struct OrderedJSONObject {
    private(set) var members: [(String, OrderedJSON)] = []

    /// Appends a member.
    mutating func add(_ key: String, _ value: OrderedJSON) {
        members.append((key, value))
    }

    /// Appends a string member when `value` is not `nil`.
    mutating func add(_ key: String, string value: String?) {
        if let value { members.append((key, .string(value))) }
    }

    /// Appends an object member when it has members.
    mutating func add(_ key: String, object: OrderedJSONObject) {
        if !object.members.isEmpty { members.append((key, object.json)) }
    }

    /// The object.
    var json: OrderedJSON { .object(members) }
}
