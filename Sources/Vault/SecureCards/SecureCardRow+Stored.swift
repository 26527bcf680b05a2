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

extension SecureCardRow {
    /// The row of `secure_cards` as both engines store it.
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("secure_cards")
        let masked = try row.string("masked_number")
        self.init(
            reference: stored.id, merchantID: try row.string("merchant_id"), merchantReference: try row.string("merchant_reference"),
            status: try stored.value(SecureCard.Status.self, "status"),
            cardType: try stored.value(CardBrand.self, "card_type"), bin: String(masked.prefix(6)), last4: String(masked.suffix(4)),
            maskedNumber: masked,
            expiry: try CardExpiry(month: try row.int("expiry_month"), year: try row.int("expiry_year")),
            entryMode: try stored.value(EntryMode.self, "entry_mode"), fingerprint: try row.string("fingerprint"),
            keyVersion: try row.int("key_version"), sealedCard: try row.optionalBlob("sealed_card"),
            sealedDetails: try row.optionalBlob("sealed_details"),
            verification: CardVerificationRecord.fromStoredText(try row.optionalString("verification")),
            createdAt: try stored.instant("created_at"), updatedAt: try stored.instant("updated_at"),
            deletedAt: try stored.optionalInstant("deleted_at"), purgedAt: try stored.optionalInstant("purged_at"),
            sequence: try row.int64("seq"), metadataBound: try row.int("metadata_bound") != 0)
    }
}
