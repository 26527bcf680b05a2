import Vault

/// Chip data. The first byte picks the shape of the rest:
/// even: raw BER-TLV bytes, hex-encoded the way a client sends them (explores the TLV structure);
/// odd: the text itself as the `emv` field (explores hex decoding, white space and garbage).
///
/// Beyond not crashing: parsing bytes and their hex gives the same elements, elements are
/// consistent with their tags, an accepted card is well formed, and no error quotes digits of the input.
public enum EMVFuzzTarget {
    /// The body of `EMVFuzzer`: throws a ``FuzzFinding`` when `bytes` break a property.
    public static func run(_ bytes: [UInt8]) throws {
        guard let mode = bytes.first else { return }
        let rest = bytes.dropFirst()
        let hex = mode & 1 == 0 ? FuzzInput.hex(rest) : String(decoding: rest, as: UTF8.self)

        var elements: [BERTLV.Element]?
        do {
            elements = try BERTLV.parse(hex: hex)
        } catch {
            try FuzzOracle.expectNoCardData(in: error, from: [hex])
        }
        if mode & 1 == 0 {
            let fromBytes = try? BERTLV.parse(bytes: Array(rest))
            guard fromBytes == elements else { throw FuzzFinding("parse(bytes:) and parse(hex:) disagree") }
        }
        for element in elements?.flatMap(\.flattened) ?? [] {
            guard element.value.count <= rest.count else { throw FuzzFinding("an element's value is longer than the input") }
            guard element.isConstructed || element.children.isEmpty else { throw FuzzFinding("a primitive element has children") }
        }

        let card: CapturedCard
        do {
            card = try CardCapture.emv(hex)
        } catch {
            try FuzzOracle.expectNoCardData(in: error, from: [hex])
            return
        }
        try FuzzOracle.expectWellFormed(card)
        guard elements?.isEmpty == false else { throw FuzzFinding("CardCapture.emv accepted data BERTLV.parse refused") }
    }
}
