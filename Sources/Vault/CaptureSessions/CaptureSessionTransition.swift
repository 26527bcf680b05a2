public import Foundation

/// One guarded move of a capture session from one status to another, decided by the domain
/// (``CaptureSessionService``) and applied by each engine as one conditional update: it changes
/// the row only while the session still has status `from` (and, for a claim, has not expired), so
/// of two submissions at once exactly one claims the session. An update that changes no row
/// writes nothing, its audit event included.
public struct CaptureSessionTransition: Sendable, Equatable {
    /// The session.
    public var sessionID: String
    /// Its merchant.
    public var merchantID: String
    /// The status the session must have for the move to apply.
    public var from: CaptureSession.Status
    /// Its status after the move.
    public var to: CaptureSession.Status
    /// When set, the move applies only while `expires_at` is after this instant.
    public var unexpiredAt: Date?
    /// Whether the move counts one refused card.
    public var countsAttempt: Bool
    /// The registered card, recorded with a completion.
    public var card: CaptureSessionCard?
    /// When the move happens (`updated_at`).
    public var at: Date
    /// The audit event written with the move, only if it applies.
    public var audit: AuditEntry?

    /// A submission claims an open, unexpired session (the single use).
    public static func claim(_ session: CaptureSession, at now: Date) -> CaptureSessionTransition {
        CaptureSessionTransition(
            sessionID: session.id, merchantID: session.merchantID, from: .open, to: .submitting, unexpiredAt: now, countsAttempt: false,
            card: nil, at: now, audit: nil)
    }

    /// The claimed session's card is registered.
    public static func complete(_ session: CaptureSession, card: CaptureSessionCard, at now: Date) -> CaptureSessionTransition {
        CaptureSessionTransition(
            sessionID: session.id, merchantID: session.merchantID, from: .submitting, to: .completed, unexpiredAt: nil, countsAttempt: false,
            card: card, at: now,
            audit: AuditEntry(
                merchantID: session.merchantID, actor: CaptureSessionService.actor(session.id), action: "capture_session.completed",
                objectType: "capture_session", objectID: session.id,
                details: ["secureCardReference": card.secureCardReference, "merchantReference": session.merchantReference]))
    }

    /// The claimed session's card was refused: open again for another card, or failed for good
    /// when `final` (too many refused cards, or a registration that can never succeed).
    public static func release(_ session: CaptureSession, final: Bool, reason: String, at now: Date) -> CaptureSessionTransition {
        CaptureSessionTransition(
            sessionID: session.id, merchantID: session.merchantID, from: .submitting, to: final ? .failed : .open, unexpiredAt: nil,
            countsAttempt: true, card: nil, at: now,
            audit: final
                ? AuditEntry(
                    merchantID: session.merchantID, actor: CaptureSessionService.actor(session.id), action: "capture_session.failed",
                    objectType: "capture_session", objectID: session.id, details: ["reason": reason])
                : nil)
    }
}
