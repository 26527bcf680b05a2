import PropertyBased
import Testing
@testable import Vault

/// Every stored schedule, step and transaction carries a MAC over its bound fields, so the message
/// the MAC covers must stay byte for byte what it was when those rows were written: each of the
/// kind, the merchant and the fields as its UTF-8 length in decimal, `:`, its bytes and `\n`.
@Suite struct RowBindingMessageTests {
    /// Short and long fields (lengths of one, two and three digits), ASCII and multi-byte
    /// characters, and the separators themselves.
    static let alphabet = Array(":\n0123456789 aZ_-.é€中😀\u{0}")
    static let fields = zip(Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...12), Gen.int(in: 0...4))
        .map { indices, repeats in String(repeating: String(indices.map { alphabet[$0] }), count: repeats == 4 ? 40 : repeats) }
    static let rows = zip(fields, fields, fields.array(of: 0...8))

    /// The message as it was built when the rows on disk were bound.
    static func writtenMessage(kind: String, merchantID: String, fields: [String]) -> [UInt8] {
        var message: [UInt8] = []
        for field in [kind, merchantID] + fields {
            let bytes = Array(field.utf8)
            message += Array(String(bytes.count).utf8) + [0x3A] + bytes + [0x0A]
        }
        return message
    }

    @Test func theMessageIsTheOneRowsWereBoundWith() async {
        await propertyCheck(count: 400, input: Self.rows) { kind, merchantID, fields in
            #expect(RowBinding.message(kind: kind, merchantID: merchantID, fields: fields)
                == Self.writtenMessage(kind: kind, merchantID: merchantID, fields: fields))
        }
    }

    @Test func aKnownRowHasItsPinnedMessageAndMAC() throws {
        let long = String(repeating: "x", count: 100)
        #expect(
            RowBinding.message(kind: "schedule_step", merchantID: "mer_1", fields: ["", "é", long])
                == Array("13:schedule_step\n5:mer_1\n0:\n2:é\n100:\(long)\n".utf8))
        let key = try SecureBytes(copying: (0..<32).map { UInt8($0 * 7 & 0xFF) })
        #expect(
            try RowBinding.mac(kind: "schedule", merchantID: "mer_1", fields: ["sch_1"], key: key)
                == KeyedHash.blake2b(Array("8:schedule\n5:mer_1\n5:sch_1\n".utf8), key: key, length: 32))
    }
}
