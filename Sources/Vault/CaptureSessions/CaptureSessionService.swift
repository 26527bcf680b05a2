public import Foundation

/// Capture sessions: created by a merchant's back end with a secret API key, spent by one card
/// submitted with the session's client secret (from the hosted card field or a mobile app).
///
/// The card is registered by ``SecureCardService/register(_:merchant:actor:now:)``, the service
/// behind `POST /v1/secure-cards`: the same validation, sealing, verification, audit and
/// `secure_card.registered` webhook. This service only decides who may submit, and once.
public struct CaptureSessionService: Sendable {
    /// How long a session takes a card unless configured otherwise: 15 minutes.
    public static let defaultLifetime: TimeInterval = 15 * 60
    /// Refused cards (validation, a declined verification) a session allows before it fails.
    public static let maxAttempts = 3
    static let detailsKind = "capture_session_details"

    private let store: any CaptureSessionStore & MerchantStore
    private let cards: SecureCardService
    private let keyring: Keyring
    private let secrets: CaptureSessionSecrets
    /// Seconds from creation to expiry.
    public let lifetime: TimeInterval

    /// A service over `store`, registering cards through `cards`.
    /// - Parameter lifetime: seconds a new session takes a card.
    public init(store: any CaptureSessionStore & MerchantStore, cards: SecureCardService, keyring: Keyring, lifetime: TimeInterval = defaultLifetime) {
        self.store = store
        self.cards = cards
        self.keyring = keyring
        self.secrets = CaptureSessionSecrets(keyring: keyring)
        self.lifetime = lifetime
    }

    /// The audit actor of what a session's client secret does.
    public static func actor(_ sessionID: String) -> String { "capture_session:\(sessionID)" }

    /// Creates a session after checking everything but the card as registration would (so a session
    /// that could never register its card is refused now, not after a card was typed).
    /// - Returns: the session and its client secret, which exists only in this answer.
    /// - Throws: `CardDataError` (422) naming the field, `SecureCardError.referenceTaken` (409).
    public func create(_ request: NewCaptureSession, merchant: Merchant, actor: String, now: Date = Date()) async throws
        -> (session: CaptureSession, clientSecret: String)
    {
        let origin = try CaptureOrigin(validating: request.allowedOrigin)
        let customer = try await cards.checkRegistrationDetails(
            merchantReference: request.merchantReference, customer: request.customer, customFields: request.customFields, merchant: merchant)
        let id = OpaqueToken.make(prefix: "cs_", randomBits: 160)
        let clientSecret = CaptureSessionSecrets.make(for: id)
        // Whole seconds: the stored instant and the one the MAC covers must be the same.
        let created = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let session = CaptureSession(
            id: id, merchantID: merchant.id, status: .open, allowedOrigin: origin, merchantReference: request.merchantReference,
            verify: request.verify, attempts: 0, card: nil, createdAt: created, updatedAt: created, expiresAt: created.addingTimeInterval(lifetime))
        let sealed = try await keyring.sealRecord(
            SealedCardDetails(customer: customer, customFields: request.customFields ?? []).plaintext, merchantID: merchant.id, kind: Self.detailsKind,
            recordID: id)
        let row = CaptureSessionRow(
            session: session, secretMAC: try await secrets.mac(of: clientSecret, session: session), sealedDetails: sealed,
            keyVersion: Keyring.keyVersion(ofSealedRecord: sealed) ?? 1)
        try await store.insertCaptureSession(
            row,
            audit: AuditEntry(
                merchantID: merchant.id, actor: actor, action: "capture_session.created", objectType: "capture_session", objectID: id,
                details: ["merchantReference": request.merchantReference, "allowedOrigin": origin.value, "expiresAt": Timestamp.string(session.expiresAt)]))
        return (session, clientSecret)
    }

    /// The merchant's session with this id.
    /// - Throws: `CaptureSessionError.notFound` for another merchant's or no session.
    public func session(id: String, merchant: Merchant) async throws -> CaptureSession {
        guard let row = try await store.captureSession(id: id), row.session.merchantID == merchant.id else { throw CaptureSessionError.notFound }
        return row.session
    }

    /// The origin allowed to frame the hosted card field of session `sessionID`, nil when there is
    /// no such session. Asked without authentication (the frame page's policy needs it); a session
    /// id is 160 random bits, and the answer names no merchant and no card.
    public func frameOrigin(sessionID: String) async throws -> CaptureOrigin? {
        guard sessionID.hasPrefix("cs_"), sessionID.utf8.count <= 64 else { return nil }
        return try await store.captureSession(id: sessionID)?.session.allowedOrigin
    }

    /// The open session `clientSecret` opens, decided before any card is read: the secret has the
    /// shape of one, names `sessionID` (when the route gives one), matches the stored MAC, and the
    /// session is open and unexpired at `now`.
    /// - Throws: `CaptureSessionError.refused`, whichever part was wrong.
    public func admit(clientSecret: String, sessionID: String?, now: Date = Date()) async throws -> AdmittedCapture {
        guard let named = CaptureSessionSecrets.sessionID(of: clientSecret), sessionID == nil || sessionID == named,
            let row = try await store.captureSession(id: named)
        else { throw CaptureSessionError.refused }
        let matches = await secrets.verify(clientSecret, row)
        guard matches, row.session.status == .open, row.session.expiresAt > now else { throw CaptureSessionError.refused }
        return AdmittedCapture(row: row)
    }

    /// Registers the one card of an admitted session.
    ///
    /// The session is claimed first by a guarded transition (open and unexpired → submitting), so
    /// of two submissions at once one registers a card and the other is refused. A card refused by
    /// registration (validation, a declined verification) opens the session again for another try,
    /// up to ``maxAttempts``; a merchantReference taken in the meantime fails it for good.
    /// - Returns: the registered card's token and masked data.
    /// - Throws: `CaptureSessionError.refused` when another submission or the clock got there
    ///   first; registration's own errors (`CardDataError`, `SecureCardError`) otherwise.
    public func submit(_ admitted: AdmittedCapture, source: CardSource, now: Date = Date()) async throws -> CaptureSessionCard {
        let session = admitted.row.session
        guard try await store.applyCaptureSessionTransition(.claim(session, at: now)) else { throw CaptureSessionError.refused }
        let attempt = session.attempts + 1
        guard let merchant = try await store.merchant(id: session.merchantID), merchant.status == .active else {
            _ = try await store.applyCaptureSessionTransition(.release(session, final: true, reason: "merchant_inactive", at: now))
            throw CaptureSessionError.refused
        }
        let registered: SecureCard
        do {
            let details = try await openDetails(admitted.row)
            let registration = SecureCardRegistration(
                merchantReference: session.merchantReference, source: source, customer: details.customer, customFields: details.customFields,
                verify: session.verify)
            registered = try await cards.register(registration, merchant: merchant, actor: Self.actor(session.id), now: now)
        } catch {
            let final: (Bool, String) =
                switch error {
                case SecureCardError.referenceTaken: (true, "reference_taken")
                case SecureCardError.integrityFailed: (true, "integrity_failed")
                default: (attempt >= Self.maxAttempts, "too_many_attempts")
                }
            _ = try? await store.applyCaptureSessionTransition(.release(session, final: final.0, reason: final.1, at: now))
            throw error
        }
        let card = CaptureSessionCard(secureCardReference: registered.reference, maskedNumber: registered.maskedNumber, cardType: registered.cardType)
        _ = try await store.applyCaptureSessionTransition(.complete(session, card: card, at: now))
        return card
    }

    private func openDetails(_ row: CaptureSessionRow) async throws -> SealedCardDetails {
        let plain: SecureBytes
        do {
            plain = try await keyring.openRecord(row.sealedDetails, merchantID: row.session.merchantID, kind: Self.detailsKind, recordID: row.session.id)
        } catch CryptoError.authenticationFailed {
            throw SecureCardError.integrityFailed
        }
        return try plain.decodeJSON(SealedCardDetails.self)
    }
}

/// A capture session whose client secret was accepted: the only way to ``CaptureSessionService/submit(_:source:now:)``.
public struct AdmittedCapture: Sendable {
    let row: CaptureSessionRow

    /// The session's id.
    public var sessionID: String { row.session.id }
    /// The session's merchant (for the access log).
    public var merchantID: String { row.session.merchantID }
}
