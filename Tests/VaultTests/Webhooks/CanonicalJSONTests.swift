import Foundation
import PropertyBased
import Testing
import Vault

/// The hand-written canonical JSON must be byte for byte what `JSONEncoder` (sorted keys, slashes
/// unescaped) writes: audit hashes and webhook signatures are computed over these bytes.
@Suite struct CanonicalJSONTests {
    /// Characters that stress escaping and ordering: controls, quotes, backslash, slash, upper
    /// and lower case, digits, accented letters, CJK and an emoji (four UTF-8 bytes).
    static let alphabet = Array("\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\"\\/ aZz09_-.:é€中😀\u{7F}")
    static let strings = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...12).map { String($0.map { alphabet[$0] }) }
    /// A string, integer or boolean leaf.
    static let leaves = zip(Gen.int(in: 0...2), strings, Gen.int(in: Int(Int32.min)...Int(Int32.max)), Gen.bool).map { kind, text, number, flag in
        switch kind {
        case 0: WebhookValue.string(text)
        case 1: WebhookValue.int(Int64(number))
        default: WebhookValue.bool(flag)
        }
    }

    static func encoderText<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func flatStringMapsMatchJSONEncoder() async throws {
        await propertyCheck(count: 500, input: zip(Self.strings, Self.strings).dictionary(ofAtMost: 0...8)) { details in
            let expected = try? Self.encoderText(details)
            #expect(CanonicalJSON.text(details) == expected)
        }
    }

    @Test func webhookValuesMatchJSONEncoder() async throws {
        let object = zip(Self.strings, Self.leaves).dictionary(ofAtMost: 0...6).map { WebhookValue.object($0) }
        await propertyCheck(count: 500, input: object, Self.leaves.array(of: 0...4)) { value, items in
            let nested = WebhookValue.object(["a": value, "list": .array(items + [.null, value]), "n": .null])
            let expected = try? Self.encoderText(nested)
            #expect(CanonicalJSON.text(nested) == expected)
        }
    }

    /// Objects as large as a webhook body's data (some twenty keys) and larger than the
    /// insertion sort takes (past 32 keys the standard sort orders them): the same order either way.
    @Test func largeObjectsMatchJSONEncoder() async throws {
        await propertyCheck(count: 200, input: zip(Self.strings, Self.strings).dictionary(ofAtMost: 0...60)) { details in
            let expected = try? Self.encoderText(details)
            #expect(CanonicalJSON.text(details) == expected)
        }
    }

    @Test func knownTextsAreExact() {
        #expect(CanonicalJSON.text([:]) == "{}")
        #expect(CanonicalJSON.text(["b": "2", "a": "x/y", "B": "\"q\"\n"]) == #"{"B":"\"q\"\n","a":"x/y","b":"2"}"#)
        #expect(CanonicalJSON.text(.object(["amount": .int(-1234), "ok": .bool(true), "x": .null, "l": .array([])]))
            == #"{"amount":-1234,"l":[],"ok":true,"x":null}"#)
    }
}
