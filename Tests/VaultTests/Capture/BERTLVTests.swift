import Testing
@testable import Vault

/// Builds hex TLV for tests, independently of the parser.
enum TLV {
    static func encode(_ tag: String, _ valueHex: String) -> String {
        tag + length(valueHex.count / 2) + valueHex
    }

    static func length(_ count: Int) -> String {
        switch count {
        case ..<0x80: byte(count)
        case ..<0x100: "81" + byte(count)
        default: "82" + byte(count >> 8) + byte(count & 0xFF)
        }
    }

    static func byte(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[(value >> 4) & 0xF], digits[value & 0xF]])
    }

    static func ascii(_ text: String) -> String {
        text.utf8.map { byte(Int($0)) }.joined()
    }
}

@Suite struct BERTLVTests {
    @Test("primitive objects with one-, two- and three-byte tags")
    func multiByteTags() throws {
        let hex = TLV.encode("5A", "4111111111111111") + TLV.encode("9F02", "000000001234") + TLV.encode("DF8101", "01")
        let elements = try BERTLV.parse(hex: hex)
        #expect(elements.map(\.tag) == [0x5A, 0x9F02, 0xDF8101])
        #expect(elements[1].value == [0, 0, 0, 0, 0x12, 0x34])
        #expect(elements.allSatisfy { !$0.isConstructed && $0.children.isEmpty })
    }

    @Test("constructed templates 70 and 77 are parsed recursively")
    func templates() throws {
        let inner = TLV.encode("5F24", "301231") + TLV.encode("A5", TLV.encode("88", "01"))
        let hex = TLV.encode("70", inner) + TLV.encode("77", TLV.encode("82", "1980"))
        let elements = try BERTLV.parse(hex: hex)
        #expect(elements.map(\.tag) == [0x70, 0x77])
        #expect(elements[0].isConstructed)
        #expect(elements[0].children.map(\.tag) == [0x5F24, 0xA5])
        #expect(elements[0].children[1].children.first?.tag == 0x88)
        #expect(BERTLV.first(0x88, in: elements)?.value == [0x01])
        #expect(elements[0].flattened.map(\.tag) == [0x70, 0x5F24, 0xA5, 0x88])
    }

    @Test("long-form lengths 81 and 82")
    func longFormLengths() throws {
        let value130 = String(repeating: "AB", count: 130)
        let value300 = String(repeating: "CD", count: 300)
        let hex = "9F4B81" + TLV.byte(130) + value130 + "9F4B82012C" + value300
        let elements = try BERTLV.parse(hex: hex)
        #expect(elements.map(\.value.count) == [130, 300])
        let nested = try BERTLV.parse(hex: TLV.encode("70", TLV.encode("9F4B", value130)))
        #expect(nested.first?.children.first?.value.count == 130)
    }

    @Test("a long-form length may use more bytes than needed")
    func nonMinimalLength() throws {
        let elements = try BERTLV.parse(hex: "5A8108" + "4111111111111111")
        #expect(elements.first?.value.count == 8)
    }

    @Test("white space, lowercase hex and 00 padding between objects are accepted")
    func lenientInput() throws {
        let elements = try BERTLV.parse(hex: "00 5a 02 41 11\n0000 9f02 01 ff 00")
        #expect(elements.map(\.tag) == [0x5A, 0x9F02])
    }

    @Test("empty input has no elements")
    func empty() throws {
        #expect(try BERTLV.parse(hex: "").isEmpty)
        #expect(try BERTLV.parse(hex: " \n").isEmpty)
    }

    @Test("malformed input is invalid_emv", arguments: [
        Labeled("odd length", "5A0"),
        Labeled("odd length 2", "5A084111111111111111F"),
        Labeled("non-hex", "5A02411G"),
        Labeled("non-ascii", "5A02é111"),
        Labeled("truncated value", "5A084111"),
        Labeled("truncated length", "5A"),
        Labeled("truncated tag", "9F"),
        Labeled("truncated 3-byte tag", "DF81"),
        Labeled("tag of five bytes", "DF8181810101"),
        Labeled("indefinite length 80", "70805A0241110000"),
        Labeled("length form 85", "5A850000000001"),
        Labeled("length form FF", "5AFF"),
        Labeled("truncated long form", "5A8201"),
        Labeled("81 past the end", "5A81FF4111"),
        Labeled("84 huge length", "5A84FFFFFFFF4111"),
        Labeled("child longer than parent", "70035A054111111111"),
        Labeled("constructed with garbage", "7002FFFF"),
    ])
    func rejectsMalformed(vector: Labeled) {
        let hex = vector.value
        let error = expectCardDataError(field: "emv", code: "invalid_emv") { () throws(CardDataError) in
            try BERTLV.parse(hex: hex)
        }
        expectNoSecrets(in: error, [hex])
    }

    @Test("nesting is limited to maximumDepth")
    func depthLimit() throws {
        func nested(_ depth: Int) -> String {
            var hex = TLV.encode("5A", "41")
            for _ in 0..<depth { hex = TLV.encode("70", hex) }
            return hex
        }
        let atLimit = try BERTLV.parse(hex: nested(BERTLV.maximumDepth - 1))
        #expect(BERTLV.first(0x5A, in: atLimit) != nil)
        expectCardDataError(field: "emv", code: "invalid_emv") { () throws(CardDataError) in
            try BERTLV.parse(hex: nested(BERTLV.maximumDepth))
        }
        expectCardDataError(field: "emv", code: "invalid_emv") { () throws(CardDataError) in
            try BERTLV.parse(hex: String(repeating: "7080", count: 5_000))
        }
    }

    @Test("input over maximumInputLength hex digits is rejected")
    func inputLimit() {
        expectCardDataError(field: "emv", code: "invalid_emv") { () throws(CardDataError) in
            try BERTLV.parse(hex: String(repeating: "00", count: BERTLV.maximumInputLength / 2 + 1))
        }
        expectCardDataError(field: "emv", code: "invalid_emv") { () throws(CardDataError) in
            try BERTLV.parse(bytes: [UInt8](repeating: 0, count: BERTLV.maximumInputLength / 2 + 1))
        }
    }
}
