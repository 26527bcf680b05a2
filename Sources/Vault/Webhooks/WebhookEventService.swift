public import Foundation

/// A merchant's webhook events for support: what was sent, what failed and why, and sending one
/// again on request (a receiver that lost it, or was down past the retry period).
public struct WebhookEventService: Sendable {
    private let store: any WebhookStore
    private let retention: TimeInterval

    /// A service over `store`; an event queued again is retried for `retention` (the
    /// configuration's `webhooks.retryHours`) from then, as a new event is.
    public init(store: any WebhookStore, retention: TimeInterval) {
        self.store = store
        self.retention = retention
    }

    /// Up to `limit` of `merchant`'s events, newest first, of `status` when given, before `beforeSequence`.
    public func list(merchant: Merchant, status: WebhookEventStatus?, beforeSequence: Int64?, limit: Int) async throws -> [WebhookEvent] {
        try await store.webhookEvents(merchantID: merchant.id, status: status, beforeSequence: beforeSequence, limit: limit)
    }

    /// Queues `merchant`'s event `id` again, whatever its status (a delivered one too): the same
    /// event id, type and body, delivered and signed anew (each delivery is signed at its own
    /// instant), with an audit event (`webhook_event.resent`) in the same write.
    /// - Returns: the event as queued.
    /// - Throws: ``WebhookEventError/notFound`` when the merchant has no such event.
    public func resend(id: String, merchant: Merchant, actor: String, now: Date = Date()) async throws -> WebhookEvent {
        let audit = AuditEntry(merchantID: merchant.id, actor: actor, action: "webhook_event.resent", objectType: "webhook_event", objectID: id)
        guard let queued = try await store.requeueWebhookEvent(
            id: id, merchantID: merchant.id, now: now, expiresAt: now.addingTimeInterval(retention), audit: audit)
        else { throw WebhookEventError.notFound }
        return queued
    }
}

/// Why a webhook event could not be acted on.
public enum WebhookEventError: Error, Equatable, Sendable {
    /// The merchant has no event with that id (404).
    case notFound
}
