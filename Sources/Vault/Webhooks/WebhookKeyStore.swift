public import Foundation

/// The versions of a merchant's webhook signing key, for rotating it with an overlap: while the
/// overlap lasts, deliveries carry a signature under each key that still signs (the
/// `Vault-Signature` header takes several `v1` entries), so a receiver checking either the old
/// secret or the new one accepts them; after it, only the newest signs.
///
/// The domain decides every window and binds it (``WebhookSecretRotation``,
/// ``WebhookSigningWindowBinding``); the store only keeps `signs_until` and its binding.
public protocol WebhookKeyStore: Sendable {
    /// In one write: adds `next`, a new version of the merchant's webhook key; sets the end and
    /// binding of each older live version in `windows`; destroys the live versions in `destroying`
    /// (their key wiped, `destroyed_at` = `now`); appends `audit`. Fails, changing nothing, when
    /// `next`'s version exists (a rotation raced by another).
    func rotateWebhookKey(_ next: WrappedKey, windows: [WebhookSigningWindow], destroying: [Int], now: Date, audit: AuditEntry) async throws
    /// The merchant's live (not destroyed) webhook key versions with their windows, newest first.
    func webhookSigningWindows(merchantID: String) async throws -> [WebhookSigningWindow]
    /// Up to `limit` live windows of an earlier build (an end and no binding), in a stable order.
    func unboundWebhookSigningWindows(limit: Int) async throws -> [WebhookSigningWindow]
    /// Stores the bindings of windows of an earlier build, in one write (only where still unbound).
    func bindWebhookSigningWindows(_ windows: [WebhookSigningWindow]) async throws
}
