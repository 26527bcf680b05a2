public import Vault

/// `POST /v1/secure-cards` as the JSON body carries it: the card data (`method`, `card`, `track`,
/// `emv`) at the body's top level beside the merchant's reference, customer and custom fields.
public struct SecureCardRegistrationRequest: Sendable, Decodable {
    /// The registration, as ``SecureCardService`` takes it.
    public var registration: SecureCardRegistration

    /// Creates a request.
    public init(_ registration: SecureCardRegistration) {
        self.registration = registration
    }

    private enum CodingKeys: String, CodingKey { case merchantReference, method, card, track, emv, customer, customFields, verify }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let merchantReference = try container.decode(String.self, forKey: .merchantReference)
        let source = try CardSource(from: container)
        try container.refuseNullOrBlankMembers(forKey: .customer)
        registration = SecureCardRegistration(
            merchantReference: merchantReference, source: source,
            customer: try container.decodeUnlessAbsent(Customer.self, forKey: .customer),
            customFields: try container.decodeUnlessAbsent([CustomField].self, forKey: .customFields),
            verify: try container.decodeUnlessAbsent(Bool.self, forKey: .verify))
    }
}

/// `PATCH /v1/secure-cards/{merchantReference}` as the JSON body carries it: present fields
/// replace, absent stay, null clears; `merchantReference` is refused.
public struct SecureCardUpdateRequest: Sendable, Decodable {
    /// The update, as ``SecureCardService`` takes it.
    public var update: SecureCardUpdate

    /// Creates a request.
    public init(_ update: SecureCardUpdate) {
        self.update = update
    }

    private enum CodingKeys: String, CodingKey { case method, card, track, emv, customer, customFields, verify, merchantReference }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.merchantReference) {
            throw DecodingError.dataCorruptedError(
                forKey: .merchantReference, in: container, debugDescription: "merchantReference cannot be changed.")
        }
        let source = try CardSource(from: container)
        try container.refuseNullOrBlankMembers(forKey: .customer, allowingNull: true)
        update = SecureCardUpdate(
            source: source,
            customer: try container.decodePatch(CustomerUpdateBody.self, forKey: .customer).map(\.update),
            customFields: try container.decodePatch([CustomField].self, forKey: .customFields),
            verify: try container.decodeIfPresent(Bool.self, forKey: .verify))
    }
}

extension CardSource {
    /// Reads `method`, `card`, `track` and `emv` from a request body (registration, update, transaction):
    /// each absent or of its type; null is a `valueNotFound` (a 422 naming it), as the document types
    /// none of them nullable. A key the container's `CodingKeys` lacks reads as absent.
    init<Key: CodingKey>(from container: KeyedDecodingContainer<Key>) throws {
        func value<Value: Decodable>(_ type: Value.Type, _ name: String) throws -> Value? {
            guard let key = Key(stringValue: name) else { return nil }
            return try container.decodeUnlessAbsent(type, forKey: key)
        }
        self.init(method: try value(String.self, "method"), card: try value(CardInputBody.self, "card")?.input,
                  track: try value(String.self, "track"), emv: try value(String.self, "emv"))
    }
}

/// The `card` object of a request body: number, expiry, holder name, CVV and expected brand, each
/// absent or a string.
private struct CardInputBody: Decodable {
    var number: String?
    var expiryDate: String?
    var holderName: String?
    var cvv: String?
    var cardType: String?

    var input: CardInput {
        CardInput(number: number, expiryDate: expiryDate, holderName: holderName, cvv: cvv, cardType: cardType)
    }
}

/// The `customer` object of a card update: each member absent (stays), null (clears) or a value
/// (replaces).
private struct CustomerUpdateBody: Decodable, Sendable, Equatable {
    var update: CustomerUpdate

    private enum CodingKeys: String, CodingKey { case email, mobileNumber, city, region, country, ipAddress }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        update = CustomerUpdate(
            email: try container.decodePatch(String.self, forKey: .email),
            mobileNumber: try container.decodePatch(String.self, forKey: .mobileNumber),
            city: try container.decodePatch(String.self, forKey: .city),
            region: try container.decodePatch(String.self, forKey: .region),
            country: try container.decodePatch(String.self, forKey: .country),
            ipAddress: try container.decodePatch(String.self, forKey: .ipAddress))
    }
}

extension PatchField {
    /// The same change with its value transformed.
    func map<Other: Sendable & Equatable>(_ transform: (Value) -> Other) -> PatchField<Other> {
        switch self {
        case .absent: .absent
        case .clear: .clear
        case .set(let value): .set(transform(value))
        }
    }
}

extension KeyedDecodingContainer {
    /// An optional field whose documented type has no null: absent is nil, null is a `valueNotFound`
    /// (a 422 naming the field), where `decodeIfPresent` would take null for absent and accept what
    /// the OpenAPI document refuses.
    func decodeUnlessAbsent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        contains(key) ? try decode(Value.self, forKey: key) : nil
    }

    /// Refuses a blank member of the object at `key`, and a null one unless `allowingNull` (a
    /// registration's `customer` has no nullable field; an update's takes null to clear one):
    /// `{"email": ""}` was taken for an absent field. A 422 naming `key.member`. Only the API's
    /// request decoders call it; stored data and `Customer.normalized()` keep their lenient reading.
    func refuseNullOrBlankMembers(forKey key: Key, allowingNull: Bool = false) throws {
        guard contains(key), try !decodeNil(forKey: key),
            let object = try? nestedContainer(keyedBy: MemberKey.self, forKey: key)
        else { return }
        for member in object.allKeys {
            let context = DecodingError.Context(codingPath: object.codingPath + [member], debugDescription: "")
            if try object.decodeNil(forKey: member) {
                if allowingNull { continue }
                throw DecodingError.valueNotFound(String.self, context)
            }
            if let text = try? object.decode(String.self, forKey: member), text.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
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
