/// Card data as an API request carries it, before capture parsing.
public struct CardInput: Sendable, Codable, Equatable {
    /// PAN, keyed or read by OCR.
    public var number: String?
    /// MMYY.
    public var expiryDate: String?
    /// Cardholder name.
    public var holderName: String?
    /// Keyed only; used for verification and never stored.
    public var cvv: String?
    /// Expected brand; must match the detected one.
    public var cardType: String?

    /// Creates card input.
    public init(number: String? = nil, expiryDate: String? = nil, holderName: String? = nil, cvv: String? = nil, cardType: String? = nil) {
        self.number = number
        self.expiryDate = expiryDate
        self.holderName = holderName
        self.cvv = cvv
        self.cardType = cardType
    }
}

/// New card data by one of the capture methods (keyed, OCR, track, EMV).
public struct CardSource: Sendable, Equatable {
    /// `keyed`, `ocr`, `track` or `emv`.
    public var method: String?
    /// For keyed and OCR.
    public var card: CardInput?
    /// Raw magnetic-stripe data.
    public var track: String?
    /// Hex BER-TLV from the chip.
    public var emv: String?

    /// Creates a source.
    public init(method: String?, card: CardInput? = nil, track: String? = nil, emv: String? = nil) {
        self.method = method
        self.card = card
        self.track = track
        self.emv = emv
    }

    /// Reads `method`, `card`, `track` and `emv` from a request body (registration, update, transaction):
    /// each absent or of its type; null is a `valueNotFound` (a 422 naming it), as the document types
    /// none of them nullable. A key the container's `CodingKeys` lacks reads as absent.
    public init<Key: CodingKey>(from container: KeyedDecodingContainer<Key>) throws {
        func value<Value: Decodable>(_ type: Value.Type, _ name: String) throws -> Value? {
            guard let key = Key(stringValue: name) else { return nil }
            return try container.decodeUnlessAbsent(type, forKey: key)
        }
        self.init(method: try value(String.self, "method"), card: try value(CardInput.self, "card"),
                  track: try value(String.self, "track"), emv: try value(String.self, "emv"))
    }

    /// Whether the request carries any card data at all.
    public var isPresent: Bool { method != nil || card != nil || track != nil || emv != nil }

    /// The new expiry of an update that changes only the expiry date (`card: {expiryDate}` alone, no
    /// method, number or other card field); nil otherwise.
    public var expiryDateAlone: String? {
        guard method == nil, track == nil, emv == nil, let card, let expiryDate = card.expiryDate,
            card.number == nil, card.holderName == nil, card.cvv == nil, card.cardType == nil
        else { return nil }
        return expiryDate
    }

    /// Parses and validates the card data by its method.
    /// - Throws: `CardDataError` naming the field.
    public func capture() throws(CardDataError) -> CapturedCard {
        let method = self.method ?? (track != nil ? "track" : emv != nil ? "emv" : "keyed")
        switch method {
        case "keyed", "ocr":
            try reject(track, field: "track", method: method)
            try reject(emv, field: "emv", method: method)
            guard let card else { throw CardDataError(field: "card", code: "missing", message: "card is required for method \(method).") }
            guard let number = card.number else { throw CardDataError(field: "card.number", code: "missing", message: "card.number is required.") }
            guard let expiry = card.expiryDate else {
                throw CardDataError(field: "card.expiryDate", code: "missing", message: "card.expiryDate is required (MMYY).")
            }
            if method == "keyed" {
                return try CardCapture.keyed(number: number, expiryDate: expiry, holderName: card.holderName, cvv: card.cvv, cardType: card.cardType)
            }
            return try CardCapture.ocr(number: number, expiryDate: expiry, holderName: card.holderName, cvv: card.cvv, cardType: card.cardType)
        case "track":
            try reject(card, field: "card", method: method)
            try reject(emv, field: "emv", method: method)
            guard let track else { throw CardDataError(field: "track", code: "missing", message: "track is required for method track.") }
            return try CardCapture.track(track)
        case "emv":
            try reject(card, field: "card", method: method)
            try reject(track, field: "track", method: method)
            guard let emv else { throw CardDataError(field: "emv", code: "missing", message: "emv is required for method emv.") }
            return try CardCapture.emv(emv)
        default:
            throw CardDataError(field: "method", code: "invalid_format", message: "method must be keyed, ocr, track or emv.")
        }
    }

    private func reject(_ value: (some Any)?, field: String, method: String) throws(CardDataError) {
        if value != nil {
            throw CardDataError(field: field, code: "not_allowed", message: "\(field) is not used with method \(method).")
        }
    }
}

/// `POST /v1/secure-cards`.
public struct SecureCardRegistration: Sendable, Decodable {
    /// The merchant's key for the card.
    public var merchantReference: String
    /// The card data.
    public var source: CardSource
    /// Customer details.
    public var customer: Customer?
    /// Merchant-defined fields.
    public var customFields: [CustomField]?
    /// Verify with the gateway; nil takes the merchant's default.
    public var verify: Bool?

    /// Creates a registration.
    public init(merchantReference: String, source: CardSource, customer: Customer? = nil, customFields: [CustomField]? = nil, verify: Bool? = nil) {
        self.merchantReference = merchantReference
        self.source = source
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }

    private enum CodingKeys: String, CodingKey { case merchantReference, method, card, track, emv, customer, customFields, verify }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        merchantReference = try container.decode(String.self, forKey: .merchantReference)
        source = try CardSource(from: container)
        try container.refuseNullOrBlankMembers(forKey: .customer)
        customer = try container.decodeUnlessAbsent(Customer.self, forKey: .customer)
        customFields = try container.decodeUnlessAbsent([CustomField].self, forKey: .customFields)
        verify = try container.decodeUnlessAbsent(Bool.self, forKey: .verify)
    }
}

/// A field of a PATCH body: absent (leave as is), null (clear) or a value (replace).
public enum PatchField<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Not in the body.
    case absent
    /// Explicit null.
    case clear
    /// A new value.
    case set(Value)
}

extension KeyedDecodingContainer {
    /// An optional field whose documented type has no null: absent is nil, null is a `valueNotFound`
    /// (a 422 naming the field), where `decodeIfPresent` would take null for absent and accept what
    /// the OpenAPI document refuses.
    public func decodeUnlessAbsent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        contains(key) ? try decode(Value.self, forKey: key) : nil
    }

    /// Refuses a blank member of the object at `key`, and a null one unless `allowingNull` (a
    /// registration's `customer` has no nullable field; an update's takes null to clear one):
    /// `{"email": ""}` was taken for an absent field. A 422 naming `key.member`. Only the API's
    /// request decoders call it; stored data and `Customer.normalized()` keep their lenient reading.
    public func refuseNullOrBlankMembers(forKey key: Key, allowingNull: Bool = false) throws {
        guard contains(key), try !decodeNil(forKey: key),
            let object = try? nestedContainer(keyedBy: MemberKey.self, forKey: key)
        else { return }
        for member in object.allKeys {
            let context = DecodingError.Context(codingPath: object.codingPath + [member], debugDescription: "")
            if try object.decodeNil(forKey: member) {
                if allowingNull { continue }
                throw DecodingError.valueNotFound(String.self, context)
            }
            if let text = try? object.decode(String.self, forKey: member), text.trimmedWhitespace.isEmpty {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: context.codingPath, debugDescription: "\(member.stringValue) must not be blank (leave it out)."))
            }
        }
    }

    func decodePatch<Value: Decodable & Sendable & Equatable>(_ type: Value.Type, forKey key: Key) throws -> PatchField<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .clear }
        return .set(try decode(Value.self, forKey: key))
    }
}

/// Any member name of a JSON object.
struct MemberKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// `PATCH /v1/secure-cards/{merchantReference}`: present fields replace, absent stay, null clears.
public struct SecureCardUpdate: Sendable, Decodable {
    /// New card data, if any.
    public var source: CardSource
    /// Customer details: each given sub-field replaces, a null sub-field clears that field, null
    /// clears them all.
    public var customer: PatchField<CustomerUpdate>
    /// The whole list replaces, null clears.
    public var customFields: PatchField<[CustomField]>
    /// Verify new card data with the gateway; nil takes the merchant's default.
    public var verify: Bool?

    /// Creates an update.
    public init(source: CardSource = CardSource(method: nil), customer: PatchField<CustomerUpdate> = .absent,
                customFields: PatchField<[CustomField]> = .absent, verify: Bool? = nil) {
        self.source = source
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }

    private enum CodingKeys: String, CodingKey { case method, card, track, emv, customer, customFields, verify, merchantReference }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.merchantReference) {
            throw DecodingError.dataCorruptedError(
                forKey: .merchantReference, in: container, debugDescription: "merchantReference cannot be changed.")
        }
        source = try CardSource(from: container)
        try container.refuseNullOrBlankMembers(forKey: .customer, allowingNull: true)
        customer = try container.decodePatch(CustomerUpdate.self, forKey: .customer)
        customFields = try container.decodePatch([CustomField].self, forKey: .customFields)
        verify = try container.decodeIfPresent(Bool.self, forKey: .verify)
    }
}
