public import Foundation

/// The JSON body POSTed for an event: `{"createdAt", "data", "id", "merchantId", "type"}` with
/// sorted keys and unescaped slashes, built once when the event is queued and sent byte for byte
/// on every attempt, so a receiver's signature check and deduplication see the same bytes.
public struct WebhookBody: Sendable, Equatable, Codable {
    /// The event id (`evt_...`); receivers deduplicate by it.
    public var id: String
    /// The event type, e.g. `transaction.approved`.
    public var type: String
    /// When the outcome happened (RFC 3339, UTC, milliseconds).
    public var createdAt: String
    /// The merchant the event belongs to.
    public var merchantId: String
    /// The event's facts.
    public var data: [String: WebhookValue]

    /// Creates a body; `data` is masked with ``WebhookBody/maskingCardNumbers(_:)``.
    public init(id: String, type: WebhookEventType, createdAt: Date, merchantID: String, data: [String: WebhookValue]) {
        self.id = id
        self.type = type.rawValue
        self.createdAt = Timestamp.string(createdAt)
        self.merchantId = merchantID
        self.data = Self.maskingCardNumbers(data)
    }

    /// The canonical JSON text.
    /// - Throws: `EncodingError` (not expected for these values).
    public func json() throws -> String {
        CanonicalJSON.text(.object([
            "id": .string(id), "type": .string(type), "createdAt": .string(createdAt), "merchantId": .string(merchantId), "data": .object(data),
        ]))
    }

    /// Parses a body as a receiver would.
    /// - Throws: `DecodingError` when `json` is not an event body.
    public static func parse(_ json: some Collection<UInt8>) throws -> WebhookBody {
        try JSONDecoder().decode(WebhookBody.self, from: Data(json))
    }

    /// `data` with every string that holds a Luhn-valid run of 13-19 digits masked to first six
    /// and last four, as `maskedNumber` is.
    ///
    /// Events must never carry card numbers; callers pass references and masked values. This is
    /// the net under that rule, so a mistake upstream cannot send a PAN to a merchant's server.
    public static func maskingCardNumbers(_ data: [String: WebhookValue]) -> [String: WebhookValue] {
        // Most events hold no run of 13 digits anywhere: those are returned as they are, uncopied.
        guard data.values.contains(where: holdsLongDigitRun) else { return data }
        return data.mapValues(maskingCardNumbers)
    }

    private static func holdsLongDigitRun(_ value: WebhookValue) -> Bool {
        switch value {
        case .string(let text): hasLongDigitRun(text)
        case .object(let object): object.values.contains(where: holdsLongDigitRun)
        case .array(let array): array.contains(where: holdsLongDigitRun)
        case .int, .bool, .null: false
        }
    }

    /// Whether `text` holds a run of at least 13 ASCII digits (the shortest card number).
    private static func hasLongDigitRun(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var run = 0
            var index = 0
            while index < bytes.count {
                run = ASCII.isDigit(bytes[index]) ? run + 1 : 0
                if run == 13 { return true }
                index += 1
            }
            return false
        }
    }

    private static func maskingCardNumbers(_ value: WebhookValue) -> WebhookValue {
        switch value {
        case .string(let text): .string(maskingCardNumbers(in: text))
        case .object(let object): .object(object.mapValues(maskingCardNumbers))
        case .array(let array): .array(array.map(maskingCardNumbers))
        case .int, .bool, .null: value
        }
    }

    private static func maskingCardNumbers(in text: String) -> String {
        // Most values hold no run of 13 digits: those are returned without copying their bytes.
        guard hasLongDigitRun(text) else { return text }
        var bytes = Array(text.utf8)
        var changed = false
        var start = 0
        while start < bytes.count {
            guard ASCII.isDigit(bytes[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < bytes.count, ASCII.isDigit(bytes[end]) { end += 1 }
            let length = end - start
            if (13...19).contains(length), Luhn.isValid(bytes: Array(bytes[start..<end])) {
                for index in (start + 6)..<(end - 4) { bytes[index] = UInt8(ascii: "*") }
                changed = true
            }
            start = end
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }
}
