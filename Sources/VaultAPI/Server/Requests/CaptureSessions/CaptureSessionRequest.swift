public import Vault

/// `POST /v1/capture-sessions`: what registration needs except the card, and the origin allowed
/// to frame the hosted card field.
public struct CaptureSessionRequest: Sendable, Decodable {
    /// The session asked for, as ``CaptureSessionService`` takes it.
    public var session: NewCaptureSession

    /// Creates a request.
    public init(_ session: NewCaptureSession) {
        self.session = session
    }

    private enum CodingKeys: String, CodingKey { case merchantReference, allowedOrigin, customer, customFields, verify }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let merchantReference = try container.decode(String.self, forKey: .merchantReference)
        let allowedOrigin = try container.decode(String.self, forKey: .allowedOrigin)
        try container.refuseNullOrBlankMembers(forKey: .customer)
        session = NewCaptureSession(
            merchantReference: merchantReference, allowedOrigin: allowedOrigin,
            customer: try container.decodeUnlessAbsent(Customer.self, forKey: .customer),
            customFields: try container.decodeUnlessAbsent([CustomField].self, forKey: .customFields),
            verify: try container.decodeUnlessAbsent(Bool.self, forKey: .verify))
    }
}

/// `POST /v1/capture-sessions/{id}/card`: the card, in the shape of a registration's (`method`,
/// `card`, `track`, `emv`), and nothing else.
public struct CaptureCardSubmission: Sendable, Decodable {
    /// The card data.
    public var source: CardSource

    /// Creates a submission.
    public init(source: CardSource) {
        self.source = source
    }

    private enum CodingKeys: String, CodingKey { case method, card, track, emv }

    public init(from decoder: any Decoder) throws {
        source = try CardSource(from: try decoder.container(keyedBy: CodingKeys.self))
    }
}
