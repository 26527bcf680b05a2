import Foundation

/// A record read from an opened plaintext: by default the whole JSON through `JSONDecoder`; the
/// card's holder name and empty details read the form this build writes directly.
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
    /// Showing a card reads it for every retrieval and every card of a list page, where
    /// `JSONDecoder` was about 2.5 % of a retrieval's CPU.
    static func read(_ plaintext: SecureBytes) throws -> SealedCardHolder {
        if let holder = plaintext.withUnsafeBytes(Self.canonical) { return holder }
        return try plaintext.decodeJSON(SealedCardHolder.self)
    }

    private static let namedOpening: StaticString = #"{"holderName":""#
    private static let namedClosing: StaticString = #"","pan":""#
    private static let anonymousOpening: StaticString = #"{"pan":""#
    private static let closing: StaticString = #""}"#

    /// The holder of the canonical form with a printable ASCII name, or nil for anything else.
    static func canonical(_ bytes: UnsafeRawBufferPointer) -> SealedCardHolder? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let end = bytes.count
        var index = 0
        var holderName: String?
        if skip(namedOpening, base, end, &index) {
            let start = index
            while index < end, base[index] != UInt8(ascii: "\"") {
                // Escapes, control characters (JSON refuses them unescaped) and UTF-8 are the decoder's.
                let byte = base[index]
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            holderName = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
            guard skip(namedClosing, base, end, &index) else { return nil }
        } else {
            guard skip(anonymousOpening, base, end, &index) else { return nil }
        }
        let digits = index
        while index < end, base[index] >= UInt8(ascii: "0"), base[index] <= UInt8(ascii: "9") { index += 1 }
        guard index > digits, skip(closing, base, end, &index), index == end else { return nil }
        return SealedCardHolder(holderName: holderName)
    }

    /// Whether `literal` is next at `index`, stepping past it when it is.
    private static func skip(_ literal: StaticString, _ base: UnsafePointer<UInt8>, _ end: Int, _ index: inout Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count, memcmp(base + index, literal.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }
}

extension SealedCardDetails: SealedPlaintextReadable {
    /// Details with no customer and no custom field, in the form ``plaintext`` writes them
    /// (`{"customFields":[]}`), are known without decoding; any other details go to `JSONDecoder`.
    private static let emptyForm: StaticString = #"{"customFields":[]}"#

    static func read(_ plaintext: SecureBytes) throws -> SealedCardDetails {
        let empty = plaintext.withUnsafeBytes { bytes in
            bytes.count == Self.emptyForm.utf8CodeUnitCount && memcmp(bytes.baseAddress!, Self.emptyForm.utf8Start, bytes.count) == 0
        }
        if empty { return SealedCardDetails(customer: nil, customFields: []) }
        return try plaintext.decodeJSON(SealedCardDetails.self)
    }
}
