import Foundation

/// Decodes a `Decodable` request type from a parsed ``JSONValue``: the one `Decoder` of request
/// bodies, so the bytes are read once.
///
/// It answers as `JSONDecoder` (default strategies) answered, error for error, because the API's
/// error for a body is derived from the `DecodingError` (`JSONCoding.apiError(for:)`): a missing key
/// is `keyNotFound`, a `null` is `valueNotFound`, a wrong JSON type is `typeMismatch` (an object is
/// `[String: Any]`, an array `[Any]`), each with the coding path of the field. A number that does not
/// fit the requested type (a fraction for an integer, out of range) is `dataCorrupted` with an empty
/// coding path, as `JSONDecoder` reported it. Integers are read exactly from the literal:
/// `100`, `100.0`, `1e2` and `0.1e3` are 100; `1.00000000000000000001` and `1e-400` are not whole.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder of `value` at the top of the body.
    init(_ value: JSONValue) {
        self.init(value, codingPath: [])
    }

    init(_ value: JSONValue, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object):
            return KeyedDecodingContainer(JSONKeyedContainer<Key>(object: object, codingPath: codingPath))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw mismatch([String: Any].self, "Dictionary<String, Any>")
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items):
            return JSONUnkeyedContainer(items: items, codingPath: codingPath)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self, .init(codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw mismatch([Any].self, "Array<Any>")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func mismatch(_ type: Any.Type, _ name: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(name) but found \(value.kind) instead."))
    }

    /// `value` as `T`: the scalars read here, the special types `JSONDecoder` read itself
    /// (`Data` as Base64, `URL`, `Decimal`), everything else through its own `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is String.Type: return try decodeString() as! T
        case is Bool.Type: return try decode(Bool.self) as! T
        case is Int64.Type: return try decodeInteger(Int64.self) as! T
        case is Int.Type: return try decodeInteger(Int.self) as! T
        case is Double.Type: return try decode(Double.self) as! T
        case is Data.Type:
            guard let data = Data(base64Encoded: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as! T
        case is URL.Type:
            guard let url = URL(string: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return url as! T
        case is Decimal.Type:
            guard case .number(let text) = value else { throw scalarError(Decimal.self) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw JSONValueDecoder.unrepresentable }
            return decimal as! T
        default:
            return try T(from: self)
        }
    }

    func decodeString() throws -> String {
        guard case .string(let text) = value else { throw scalarError(String.self) }
        return text
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw scalarError(T.self) }
        guard let integer = JSONNumberLiteral.integer(T.self, text) else { throw JSONValueDecoder.unrepresentable }
        return integer
    }

    func decodeFloat<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw scalarError(T.self) }
        guard let number = T(text), number.isFinite else { throw JSONValueDecoder.unrepresentable }
        return number
    }

    /// `null` where a value was required, or a value of the wrong JSON type.
    func scalarError(_ type: Any.Type) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kind) instead."))
    }

    /// A number the requested type cannot hold, with an empty coding path as `JSONDecoder` had it
    /// (never quoting the number: it may be card data).
    static let unrepresentable = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    /// `null` for a `Bool` is a type mismatch (not a missing value), as `JSONDecoder` had it.
    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else {
            throw DecodingError.typeMismatch(Bool.self, .init(codingPath: codingPath, debugDescription: "Expected to decode Bool but found \(value.kind) instead."))
        }
        return flag
    }

    func decode(_ type: String.Type) throws -> String { try decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decodeFloat(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try decodeFloat(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}

/// The members of one object, by the request type's keys.
private struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { object.value(forKey: key.stringValue) != nil }

    private func member(_ key: Key) throws -> JSONValueDecoder {
        guard let value = object.value(forKey: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return JSONValueDecoder(value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decode(Bool.self) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decodeFloat(Double.self) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).decodeFloat(Float.self) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decodeInteger(Int.self) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decodeInteger(Int8.self) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decodeInteger(Int16.self) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decodeInteger(Int32.self) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decodeInteger(Int64.self) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decodeInteger(UInt.self) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decodeInteger(UInt8.self) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decodeInteger(UInt16.self) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decodeInteger(UInt32.self) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decodeInteger(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decodeValue(T.self) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(object.value(forKey: "super") ?? .null, codingPath: codingPath + [JSONIndexKey(superKey: ())])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(object.value(forKey: key.stringValue) ?? .null, codingPath: codingPath + [key])
    }
}

/// The items of one array, in order.
private struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The decoder of the next item, moving past it.
    private mutating func next(_ type: Any.Type) throws -> JSONValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [JSONIndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        let decoder = JSONValueDecoder(items[currentIndex], codingPath: codingPath + [JSONIndexKey(index: currentIndex)])
        currentIndex += 1
        return decoder
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self, .init(codingPath: codingPath + [JSONIndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        if case .null = items[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(Bool.self) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decodeFloat(Double.self) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decodeFloat(Float.self) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decodeInteger(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decodeInteger(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decodeInteger(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decodeInteger(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decodeInteger(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decodeInteger(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decodeInteger(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decodeInteger(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decodeInteger(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decodeInteger(UInt64.self) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self)
    }
}

/// An array index in a coding path (`customFields[0]`), or the `super` key.
private struct JSONIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init(superKey: Void) {
        stringValue = "super"
        intValue = nil
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
