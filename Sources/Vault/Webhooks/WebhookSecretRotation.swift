public import Foundation

/// Rotates a merchant's webhook signing secret with an overlap, so its receiver can switch to the
/// new secret without refusing a delivery: both secrets sign during the overlap, only the new one
/// after, and the old one is destroyed at the next rotation. Each window is bound
/// (``WebhookSigningWindowBinding``): one raised in the database signs nothing and is destroyed
/// at the next rotation.
public struct WebhookSecretRotation: Sendable {
    private let store: any WebhookKeyStore
    private let keyring: Keyring

    /// Longest overlap accepted (30 days).
    public static let maximumOverlap: TimeInterval = 30 * 86_400

    /// A rotation over `store`, with keys made and opened by `keyring`.
    public init(store: any WebhookKeyStore, keyring: Keyring) {
        self.store = store
        self.keyring = keyring
    }

    /// Makes a new webhook signing key for `merchantID`; the keys before it keep signing for
    /// `overlap` from `now` (0: the new one alone signs at once). Audited as `webhook.secret_rotated`.
    /// - Returns: the new key's version, the new secret (sensitive) and when the old ones stop signing.
    public func rotate(merchantID: String, overlap: TimeInterval, actor: String, now: Date = Date()) async throws
        -> (version: Int, secret: SecureBytes, previousSignUntil: Date)
    {
        let overlap = min(max(0, overlap), Self.maximumOverlap)
        let (_, current) = try await keyring.key(merchantID: merchantID, purpose: .webhook)
        let next = try keyring.newKeyVersion(merchantID: merchantID, purpose: .webhook, version: current + 1, now: now)
        let until = now.addingTimeInterval(overlap)
        if let audited = store as? any WebhookKeyStore & AuditStore {
            try await WebhookSigningWindowBinding(keyring: keyring).recordWindowsBound(merchantID: merchantID, in: audited)
        }
        let (windows, destroying) = try await replacedWindows(merchantID: merchantID, below: next.version, until: until, now: now)
        try await store.rotateWebhookKey(
            next, windows: windows, destroying: destroying, now: now,
            audit: AuditEntry(
                merchantID: merchantID, actor: actor, action: "webhook.secret_rotated", objectType: "merchant", objectID: merchantID,
                details: ["version": String(next.version), "previousSignUntil": Timestamp.string(until)]))
        keyring.noteNewestVersion(merchantID: merchantID, purpose: .webhook, version: next.version)
        try await keyring.announceKeyChange()
        let secret = try await keyring.key(merchantID: merchantID, purpose: .webhook, version: next.version).key
        return (next.version, secret, until)
    }

    /// What a rotation does to the live versions below `version`: each whose window had ended by
    /// `now`, or whose window fails its binding (set or raised in the database), is destroyed; each
    /// other signs until `until` at most (an earlier end is kept), its new end bound.
    func replacedWindows(merchantID: String, below version: Int, until: Date, now: Date) async throws
        -> (windows: [WebhookSigningWindow], destroying: [Int])
    {
        let binding = WebhookSigningWindowBinding(keyring: keyring)
        var windows: [WebhookSigningWindow] = []
        var destroying: [Int] = []
        for window in try await store.webhookSigningWindows(merchantID: merchantID) where window.version < version {
            let intact = await binding.isIntact(window)
            if !intact || window.signsUntil.map({ $0 <= now }) == true {
                destroying.append(window.version)
            } else if window.signsUntil.map({ $0 > until }) ?? true {
                var shortened = window
                shortened.signsUntil = until
                windows.append(try await binding.bound(shortened))
            }
        }
        return (windows, destroying)
    }
}
