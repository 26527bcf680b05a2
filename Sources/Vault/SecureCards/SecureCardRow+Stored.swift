import Foundation

extension SecureCardRow {
    /// What a `secure_card.*` event says: references and masked data only. One definition for
    /// every storage engine, so the engines cannot drift apart in what a webhook carries.
    public var webhookData: [String: WebhookValue] {
        ["secureCardReference": .string(reference), "merchantReference": .string(merchantReference),
         "cardType": .string(cardType.rawValue), "maskedNumber": .string(maskedNumber), "expiryDate": .string(expiry.mmyy)]
    }
}

extension CardVerificationRecord {
    /// The stored form (the `verification` column): JSON with instants as `Timestamp` text.
    public static func storedText(_ record: CardVerificationRecord?) throws -> String? {
        guard let record else { return nil }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    /// Reads the stored form back; nil when absent or unreadable (a record only informs).
    public static func fromStoredText(_ text: String?) -> CardVerificationRecord? {
        guard let text else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an instant"))
            }
            return date
        }
        return try? decoder.decode(CardVerificationRecord.self, from: Data(text.utf8))
    }
}
