/// A small XML reader for gateway replies (NMI's Query API): elements, text, entities, CDATA.
///
/// Attributes are skipped, namespaces kept as written; DTDs are not supported (and not
/// needed). A document that does not nest properly is `nil`, never a crash.
enum MiniXML {
    /// One element: its name, child elements in order and its text content.
    struct Element: Sendable, Equatable {
        var name: String
        var children: [Element] = []
        var text: String = ""

        /// The first child element with `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }

        /// All child elements with `name`.
        func children(named name: String) -> [Element] { children.filter { $0.name == name } }

        /// The trimmed text of the first child element with `name`, or `nil` when absent or empty.
        func value(_ name: String) -> String? {
            guard let text = child(name)?.text.trimmingASCIISpaces(), !text.isEmpty else { return nil }
            return text
        }
    }

    /// Parses a document and returns its root element, or `nil` when it is not well formed.
    static func parse(_ bytes: some Collection<UInt8>) -> Element? {
        var parser = Parser(bytes: Array(bytes))
        return parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func document() -> Element? {
            var stack: [Element] = []
            var root: Element?
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "<") {
                    if starts(with: "<?") {
                        guard skip(past: "?>") else { return nil }
                    } else if starts(with: "<!--") {
                        guard skip(past: "-->") else { return nil }
                    } else if starts(with: "<![CDATA[") {
                        index += 9
                        let start = index
                        guard skip(past: "]]>") else { return nil }
                        guard !stack.isEmpty else { return nil }
                        stack[stack.count - 1].text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                    } else if starts(with: "<!") {
                        guard skip(past: ">") else { return nil }
                    } else if starts(with: "</") {
                        index += 2
                        guard let name = readName(), skipSpaces(), expect(">") else { return nil }
                        guard let element = stack.popLast(), element.name == name else { return nil }
                        if stack.isEmpty {
                            guard root == nil else { return nil }
                            root = element
                        } else {
                            stack[stack.count - 1].children.append(element)
                        }
                    } else {
                        index += 1
                        guard let name = readName() else { return nil }
                        guard let selfClosing = skipAttributes() else { return nil }
                        let element = Element(name: name)
                        if selfClosing {
                            if stack.isEmpty {
                                guard root == nil else { return nil }
                                root = element
                            } else {
                                stack[stack.count - 1].children.append(element)
                            }
                        } else {
                            stack.append(element)
                        }
                    }
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    let text = Self.decodeEntities(bytes[start..<index])
                    if stack.isEmpty {
                        guard text.trimmingASCIISpaces().isEmpty else { return nil }
                    } else {
                        stack[stack.count - 1].text += text
                    }
                }
            }
            return stack.isEmpty ? root : nil
        }

        func starts(with text: String) -> Bool {
            bytes[index...].starts(with: text.utf8)
        }

        mutating func skip(past terminator: String) -> Bool {
            let pattern = Array(terminator.utf8)
            while index + pattern.count <= bytes.count {
                if bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                    index += pattern.count
                    return true
                }
                index += 1
            }
            return false
        }

        mutating func readName() -> String? {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ")
                    || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "<") {
                    break
                }
                index += 1
            }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        mutating func skipSpaces() -> Bool {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            return true
        }

        mutating func expect(_ text: String) -> Bool {
            guard starts(with: text) else { return false }
            index += text.utf8.count
            return true
        }

        /// Skips attributes up to `>` or `/>`; returns whether the tag closed itself.
        mutating func skipAttributes() -> Bool? {
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "<") {
                    return nil
                } else if byte == UInt8(ascii: ">") {
                    index += 1
                    return index >= 2 && bytes[index - 2] == UInt8(ascii: "/")
                }
                index += 1
            }
            return nil
        }

        static func decodeEntities(_ slice: ArraySlice<UInt8>) -> String {
            guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
            var out = ""
            var text = Substring(String(decoding: slice, as: UTF8.self))
            while let amp = text.firstIndex(of: "&") {
                out += text[..<amp]
                guard let semicolon = text[amp...].firstIndex(of: ";"),
                      text.distance(from: amp, to: semicolon) <= 10 else {
                    out += "&"
                    text = text[text.index(after: amp)...]
                    continue
                }
                let entity = text[text.index(after: amp)..<semicolon]
                switch entity {
                case "amp": out += "&"
                case "lt": out += "<"
                case "gt": out += ">"
                case "quot": out += "\""
                case "apos": out += "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let code = UInt32(entity.dropFirst(2), radix: 16),
                       let scalar = Unicode.Scalar(code) {
                        out.unicodeScalars.append(scalar)
                    } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()), let scalar = Unicode.Scalar(code) {
                        out.unicodeScalars.append(scalar)
                    } else {
                        out += text[amp...semicolon]
                    }
                }
                text = text[text.index(after: semicolon)...]
            }
            return out + text
        }
    }
}
