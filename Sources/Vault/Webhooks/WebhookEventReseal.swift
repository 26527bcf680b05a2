/// Re-seals the holder data in a merchant's stored webhook event bodies (``WebhookFieldSeal``
/// markers) under its newest data key (`vault keys rotate --data`), so no event needs a superseded
/// data key: an event still queued when the superseded versions are destroyed is sent with its
/// holder name, and one already delivered can still be queued again by an operator.
public struct WebhookEventReseal: Sendable {
    private let store: any WebhookStore
    private let seal: WebhookFieldSeal

    /// Re-seals `store`'s events with the merchants' data keys from `keyring`.
    public init(store: any WebhookStore, keyring: Keyring) {
        self.store = store
        seal = WebhookFieldSeal(keyring: keyring)
    }

    /// Re-seals every event of `merchantID` (whatever its status) with a marker sealed under an
    /// older data key; safe while serving (each body is replaced only if unchanged since read).
    /// - Returns: how many events were re-sealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        try await ResealPass.run(
            batchSize: batchSize,
            page: { try await store.webhookEvents(merchantID: merchantID, status: nil, beforeSequence: $0, limit: $1) },
            sequence: \.sequence,
            reseal: { event in
                guard let resealed = try await seal.resealedBody(event.body, merchantID: merchantID) else { return false }
                return try await store.resealWebhookEventBody(id: event.id, old: event.body, new: resealed)
            })
    }
}
