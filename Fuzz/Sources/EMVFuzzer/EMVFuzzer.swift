import FuzzSupport
import Vault

/// libFuzzer entry for chip data. The first byte picks the shape of the rest:
/// even: raw BER-TLV bytes, hex-encoded the way a client sends them (explores the TLV structure);
/// odd: the text itself as the `emv` field (explores hex decoding, white space and garbage).
///
/// Beyond not crashing: parsing bytes and their hex gives the same elements, elements are
/// consistent with their tags, an accepted card is well formed, and no error quotes digits of the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func emvFuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let mode = input.bytes.first else { return 0 }
    let rest = input.bytes.dropFirst()
    let hex = mode & 1 == 0 ? FuzzInput.hex(rest) : String(decoding: rest, as: UTF8.self)

    var elements: [BERTLV.Element]?
    do {
        elements = try BERTLV.parse(hex: hex)
    } catch {
        FuzzOracle.expectNoCardData(in: error, from: [hex])
    }
    if mode & 1 == 0 {
        let fromBytes = try? BERTLV.parse(bytes: Array(rest))
        guard fromBytes == elements else { fatalError("parse(bytes:) and parse(hex:) disagree") }
    }
    for element in elements?.flatMap(\.flattened) ?? [] {
        guard element.value.count <= rest.count else { fatalError("an element's value is longer than the input") }
        guard element.isConstructed || element.children.isEmpty else { fatalError("a primitive element has children") }
    }

    do {
        let card = try CardCapture.emv(hex)
        FuzzOracle.expectWellFormed(card)
        guard elements?.isEmpty == false else { fatalError("CardCapture.emv accepted data BERTLV.parse refused") }
    } catch {
        FuzzOracle.expectNoCardData(in: error, from: [hex])
    }
    return 0
}
