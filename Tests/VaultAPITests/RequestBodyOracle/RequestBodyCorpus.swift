import Foundation
@testable import VaultAPI

/// Request bodies for comparing the body path with its oracle: every JSON route's good bodies and
/// mutations of them (duplicate keys at depth, unknown fields, missing fields, nulls, wrong types,
/// odd numbers, escapes, broken bytes, deep nesting), written as text so a mutation can say what a
/// JSON library would not let it say (a key twice, a raw literal).
enum RequestBodyCorpus {
    /// A JSON document built for writing, with literals kept as written.
    indirect enum Doc {
        case object([(String, Doc)])
        case array([Doc])
        /// A scalar exactly as it is written out: `12.5e3`, `true`, `"text"` (already quoted).
        case raw(String)

        /// The document read from a parsed value.
        init(_ value: JSONValue) {
            switch value {
            case .null: self = .raw("null")
            case .bool(let flag): self = .raw(flag ? "true" : "false")
            case .number(let text): self = .raw(text)
            case .string(let text): self = .raw(Doc.quoted(text))
            case .array(let items): self = .array(items.map(Doc.init))
            case .object(let object): self = .object(object.members.map { ($0.key, Doc($0.value)) })
            }
        }

        /// `text` as a JSON string, escaping only what must be.
        static func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }

        var text: String {
            switch self {
            case .raw(let literal): literal
            case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
            case .object(let members): "{" + members.map { Doc.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
            }
        }

        /// Every document `change` makes of one value, at every path (the value itself included).
        func everywhere(_ change: (Doc) -> [Doc]) -> [Doc] {
            var results = change(self)
            switch self {
            case .raw:
                break
            case .array(let items):
                for index in items.indices {
                    for replacement in items[index].everywhere(change) {
                        var copy = items
                        copy[index] = replacement
                        results.append(.array(copy))
                    }
                }
            case .object(let members):
                for index in members.indices {
                    for replacement in members[index].1.everywhere(change) {
                        var copy = members
                        copy[index].1 = replacement
                        results.append(.object(copy))
                    }
                }
            }
            return results
        }
    }

    /// Values put in place of a member's value.
    static let replacements: [String] = [
        "null", "true", "false", "0", "-0", "1", "-1", "100", "100.0", "1e2", "1E+2", "0.1e3", "1.5", "-2.25", "2.5e-1",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e19", "1e-400",
        "100000000000000000000000", "1.00000000000000000001", "9007199254740993", "9007199254740993.0", "1e400", "-1e400",
        #""""#, #""text""#, #""4242424242424242""#, #""line\nbreak""#, #""tab\there""#, #""\u0000""#, #""\u007f""#, #""\u0085""#,
        #""\u00e9t\u00E9""#, #""e\u0301""#, #""\ud83d\ude00""#, #""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\/\"\\""#, #""\x""#,
        "\"" + String(repeating: "a", count: 300) + "\"", "\"" + String(repeating: "e\u{301}", count: 600) + "\"",
        "[]", "[1,2]", #"["a"]"#, "[null]", "{}", #"{"x":1}"#, "[1,]", #"{"a":1,}"#,
    ]

    /// The mutations of one good body.
    static func mutations(of body: String) -> [String] {
        guard let value = try? JSONBodyParser.parse(Array(body.utf8)) else { return [body] }
        let doc = Doc(value)
        var bodies: [String] = [body, doc.text]
        // Changes at every path: a key twice (the same or another value), an unknown field, a
        // missing field, a key escaped or spelt as an equivalent, each replacement value.
        bodies += doc.everywhere { node in
            guard case .object(let members) = node else { return [] }
            var changed: [Doc] = [.object(members + [("extraField", .raw("1"))]), .object(members + [("4242424242424242", .raw("1"))])]
            for (index, member) in members.enumerated() {
                changed.append(.object(members + [(member.0, .raw("999999"))]))
                changed.append(.object(members + [member]))
                var without = members
                without.remove(at: index)
                changed.append(.object(without))
                for replacement in replacements {
                    var copy = members
                    copy[index].1 = .raw(replacement)
                    changed.append(.object(copy))
                }
            }
            return changed
        }.map(\.text)
        // Text-level changes: escaped keys, trailing bytes, truncation, byte order mark, whitespace.
        let text = doc.text
        if let quote = text.firstIndex(of: "\""), let second = text[text.index(after: quote)...].firstIndex(of: "\"") {
            let key = text[text.index(after: quote)..<second]
            if let first = key.unicodeScalars.first {
                let hex = String(first.value, radix: 16)
                let rest = String(String.UnicodeScalarView(key.unicodeScalars.dropFirst()))
                let escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex + rest
                bodies.append(text.replacingCharacters(in: text.index(after: quote)..<second, with: escaped))
                bodies.append(String(text.dropLast()) + ",\"" + escaped + "\":1}")
            }
        }
        bodies += [
            text + " x", text + ",", text + "}", text + "\u{0}", text + " \n\t\r", " " + text, "\u{FEFF}" + text, "\u{FEFF}\u{FEFF}" + text,
            text + "//", "[" + text + "]", "[" + text + "," + text + "]", "null", "1", "\"text\"", "[]", "{}", " ", "\n",
            text.replacingOccurrences(of: ":", with: " : "), text.replacingOccurrences(of: ",", with: ",,"),
            String(repeating: "[", count: 33) + text + String(repeating: "]", count: 33),
            String(repeating: "[", count: 31) + text + String(repeating: "]", count: 31),
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
            String(repeating: "{\"a\":", count: 33) + "1" + String(repeating: "}", count: 33),
        ]
        for cut in stride(from: 1, to: text.utf8.count, by: max(1, text.utf8.count / 12)) {
            bodies.append(String(decoding: Array(text.utf8.prefix(cut)), as: UTF8.self))
        }
        return bodies
    }

    /// Byte-level mutations that text cannot carry: broken UTF-8 inside a string, UTF-16.
    static func byteMutations(of body: String) -> [[UInt8]] {
        let bytes = Array(body.utf8)
        var results: [[UInt8]] = [[]]
        if let quote = bytes.firstIndex(of: UInt8(ascii: "\"")) {
            for broken: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xC3, 0xA9], [0x7F], [0xC2, 0x85]] {
                var copy = bytes
                copy.insert(contentsOf: broken, at: quote + 1)
                results.append(copy)
            }
        }
        results.append(Array(body.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        results.append([0xFF, 0xFE] + Array(body.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        return results
    }
}
