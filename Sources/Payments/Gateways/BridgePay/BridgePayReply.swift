import Vault

/// A BridgeComm answer: the SOAP envelope's `ProcessRequestResult` (base64), decoded into the
/// response document (`<Auth>`, `<VoidRefund>`, ...; docs "Raw XML response") and its fields.
struct BridgePayReply: Sendable, Equatable {
    /// The document's root element name (`Auth`, `VoidRefund`, ...).
    var kind: String
    /// The header fields: `TransactionID`, `RequestType`, `ResponseCode`, `ResponseDescription`.
    var header: [String: String]
    /// The `responseMessage` fields by name (the first of a repeated name wins).
    var message: [String: String]

    /// `ResponseCode`, the 5-digit gateway result of the request.
    var responseCode: String? { header["ResponseCode"] }
    /// `ResponseDescription`.
    var responseDescription: String? { header["ResponseDescription"] }

    /// A message field by name, ignoring case (the docs spell `GatewayTransID` and
    /// `GatewayTransId`), or `nil` when absent or empty.
    func value(_ name: String) -> String? {
        if let exact = message[name] { return exact }
        let lowered = name.lowercased()
        return message.first { $0.key.lowercased() == lowered }?.value
    }

    /// Reads an HTTP body; `nil` when it is not a SOAP envelope with a decodable response
    /// document.
    static func parse(_ body: [UInt8]) -> BridgePayReply? {
        guard let envelope = MiniXML.parse(body),
              let result = firstElement(localName: "ProcessRequestResult", in: envelope) else { return nil }
        let base64 = String(result.text.filter { !$0.isWhitespace })
        guard !base64.isEmpty, let decoded = try? Encoding.fromBase64(base64) else { return nil }
        return document(utf8(decoded))
    }

    /// Reads a decoded response document.
    static func document(_ bytes: [UInt8]) -> BridgePayReply? {
        guard let root = MiniXML.parse(bytes) else { return nil }
        var header: [String: String] = [:]
        var message: [String: String] = [:]
        for child in root.children {
            if child.name == "responseMessage" {
                for field in child.children where message[field.name] == nil {
                    let text = field.text.trimmingASCIISpaces()
                    if !text.isEmpty { message[field.name] = text }
                }
            } else if header[child.name] == nil {
                let text = child.text.trimmingASCIISpaces()
                if !text.isEmpty { header[child.name] = text }
            }
        }
        guard header["ResponseCode"] != nil else { return nil }
        return BridgePayReply(kind: root.name, header: header, message: message)
    }

    /// The first element, depth first, whose name without a namespace prefix is `localName`.
    static func firstElement(localName: String, in element: MiniXML.Element) -> MiniXML.Element? {
        let name = element.name.split(separator: ":").last.map(String.init) ?? element.name
        if name == localName { return element }
        for child in element.children {
            if let found = firstElement(localName: localName, in: child) { return found }
        }
        return nil
    }

    /// UTF-8 bytes of a document that may be UTF-16 (.NET serializes with
    /// `encoding="utf-16"` in the declaration, and some hosts encode the bytes that way too).
    static func utf8(_ bytes: [UInt8]) -> [UInt8] {
        let littleEndian: Bool
        var start = 0
        if bytes.starts(with: [0xFF, 0xFE]) {
            littleEndian = true
            start = 2
        } else if bytes.starts(with: [0xFE, 0xFF]) {
            littleEndian = false
            start = 2
        } else if bytes.count >= 2, bytes[0] == UInt8(ascii: "<"), bytes[1] == 0 {
            littleEndian = true
        } else if bytes.count >= 2, bytes[0] == 0, bytes[1] == UInt8(ascii: "<") {
            littleEndian = false
        } else {
            return bytes
        }
        var units: [UInt16] = []
        var index = start
        while index + 1 < bytes.count {
            let pair = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            units.append(littleEndian ? pair.0 | pair.1 << 8 : pair.0 << 8 | pair.1)
            index += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}
