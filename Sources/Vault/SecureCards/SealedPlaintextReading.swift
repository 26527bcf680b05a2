import Foundation

/// A record read from an opened plaintext: by default the whole JSON through `JSONDecoder`; a
/// card's holder name and details read the form this build seals directly.
protocol SealedPlaintextReadable: Decodable {
    /// The record in `plaintext` (locked bytes, read in place).
    static func read(_ plaintext: SecureBytes) throws -> Self
}

extension SealedPlaintextReadable {
    static func read(_ plaintext: SecureBytes) throws -> Self {
        try plaintext.decodeJSON(Self.self)
    }
}

extension SealedCardData: SealedPlaintextReadable {}

extension SealedCardHolder: SealedPlaintextReadable {
    /// Reads the holder name of the form ``SealedCardData/withPlaintext(pan:holderName:_:)`` writes,
    /// `{"holderName":"…","pan":"…"}` or `{"pan":"…"}`, when the name is printable ASCII without
    /// an escape: in place, the PAN's digits checked and never copied. Every other form (an escaped
    /// or non-ASCII name; the key order or the escaped `/` of an earlier build's `JSONEncoder`) goes
    /// to `JSONDecoder`, so what is read is always what `JSONDecoder` reads (a property test
    /// compares them).
    ///
    /// Showing a card reads it for every retrieval and every card of a list page; `JSONDecoder`
    /// with its allocations was most of the CPU that this saves (see the performance document).
    static func read(_ plaintext: SecureBytes) throws -> SealedCardHolder {
        if let holder = plaintext.withUnsafeBytes(Self.canonical) { return holder }
        return try plaintext.decodeJSON(SealedCardHolder.self)
    }

    /// The holder of the canonical form with a printable ASCII name, or nil for anything else.
    static func canonical(_ bytes: UnsafeRawBufferPointer) -> SealedCardHolder? {
        guard var reader = PlainJSONReader(bytes) else { return nil }
        var holderName: String?
        if reader.skip(#"{"holderName":"#) {
            guard let name = reader.plainString(), reader.skip(#","pan":""#) else { return nil }
            holderName = name
        } else {
            guard reader.skip(#"{"pan":""#) else { return nil }
        }
        guard reader.skipDigits(), reader.skip(#""}"#), reader.atEnd else { return nil }
        return SealedCardHolder(holderName: holderName)
    }
}

extension SealedCardDetails: SealedPlaintextReadable {
    /// Reads details of the form ``plaintext`` writes (`{"customFields":[{"name":…,"value":…}],
    /// "customer":{…}}`, no whitespace) when every string is printable ASCII without an escape;
    /// any other form goes to `JSONDecoder`, so what is read is always what it reads (a property
    /// test compares them).
    static func read(_ plaintext: SecureBytes) throws -> SealedCardDetails {
        if let details = plaintext.withUnsafeBytes(Self.canonical) { return details }
        return try plaintext.decodeJSON(SealedCardDetails.self)
    }

    /// The details of the canonical form with plain strings, or nil for anything else.
    static func canonical(_ bytes: UnsafeRawBufferPointer) -> SealedCardDetails? {
        guard var reader = PlainJSONReader(bytes), reader.skip(#"{"customFields":["#) else { return nil }
        var customFields: [CustomField] = []
        if !reader.skip("]") {
            repeat {
                guard reader.skip(#"{"name":"#), let name = reader.plainString(), reader.skip(#","value":"#),
                    let value = reader.plainString(), reader.skip("}")
                else { return nil }
                customFields.append(CustomField(name: name, value: value))
            } while reader.skip(",")
            guard reader.skip("]") else { return nil }
        }
        var customer: Customer?
        if reader.skip(#","customer":{"#) {
            var fields = Customer()
            if !reader.skip("}") {
                repeat {
                    // A key twice or a key `Customer` does not have: the decoder's case.
                    guard let key = reader.plainString(), reader.skip(":"), let value = reader.plainString() else { return nil }
                    switch key {
                    case "city" where fields.city == nil: fields.city = value
                    case "country" where fields.country == nil: fields.country = value
                    case "email" where fields.email == nil: fields.email = value
                    case "ipAddress" where fields.ipAddress == nil: fields.ipAddress = value
                    case "mobileNumber" where fields.mobileNumber == nil: fields.mobileNumber = value
                    case "region" where fields.region == nil: fields.region = value
                    default: return nil
                    }
                } while reader.skip(",")
                guard reader.skip("}") else { return nil }
            }
            customer = fields
        }
        guard reader.skip("}"), reader.atEnd else { return nil }
        return SealedCardDetails(customer: customer, customFields: customFields)
    }
}

/// Reads, in place, JSON in the form the vault writes its sealed records: no whitespace, and
/// strings of printable ASCII without escapes. Anything else is refused (nil or false), for the
/// caller to hand the bytes to `JSONDecoder`.
struct PlainJSONReader {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var index = 0

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return nil }
        self.base = base.assumingMemoryBound(to: UInt8.self)
        end = bytes.count
    }

    /// Whether every byte was read.
    var atEnd: Bool { index == end }

    /// Whether `literal` comes next, stepping past it when it does.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count, memcmp(base + index, literal.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// A string of printable ASCII without escapes, from its opening quote past its closing one;
    /// nil (the decoder's case) for an escape, a control character (JSON refuses them unescaped)
    /// or a byte beyond ASCII.
    mutating func plainString() -> String? {
        guard index < end, base[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var cursor = start
        while cursor < end, base[cursor] != UInt8(ascii: "\"") {
            let byte = base[cursor]
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            cursor += 1
        }
        guard cursor < end else { return nil }
        index = cursor + 1
        return String(decoding: UnsafeBufferPointer(start: base + start, count: cursor - start), as: UTF8.self)
    }

    /// Steps past one or more ASCII digits; false when none comes next.
    mutating func skipDigits() -> Bool {
        let start = index
        while index < end, base[index] >= UInt8(ascii: "0"), base[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }
}
