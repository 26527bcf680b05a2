public import Foundation

/// The versions of a merchant's webhook signing key, for rotating it with an overlap: while the
/// overlap lasts, deliveries carry a signature under each key that still signs (the
/// `Vault-Signature` header takes several `v1` entries), so a receiver checking either the old
/// secret or the new one accepts them; after it, only the newest signs.
public protocol WebhookKeyStore: Sendable {
    /// Adds `next`, a new version of the merchant's webhook key, with `audit`, in one write: every
    /// older live version then signs until `previousSignUntil` at most (an earlier end is kept),
    /// and older versions whose end had passed by `now` are destroyed.
    func rotateWebhookKey(_ next: WrappedKey, previousSignUntil: Date, now: Date, audit: AuditEntry) async throws
    /// The versions of the merchant's webhook key that sign a delivery at `now`, newest first: the
    /// newest live version, then older live versions whose end is after `now`.
    func webhookSigningVersions(merchantID: String, now: Date) async throws -> [Int]
}
