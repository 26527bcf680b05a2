import Foundation
import Hummingbird
public import Vault

/// `GET /v1/webhook-events?status=` (the merchant's events, newest first, with their delivery
/// state) and `POST /v1/webhook-events/{id}/resend` (queue one again, a delivered one too): what
/// support needs when a receiver says it never got an event.
struct WebhookEventsController {
    let events: WebhookEventService
    let cursorKeys: ListCursorKeys

    func addRoutes(to api: APIRoutes) {
        api.admitting(.admin, .readonly).get("webhook-events") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "webhook-events")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            var status: WebhookEventStatus?
            if let text = request.uri.queryParameters["status"] {
                guard let value = WebhookEventStatus(rawValue: String(text)) else {
                    throw APIError.invalid("status must be pending, delivered or expired.", code: "invalid_value", param: "status")
                }
                status = value
            }
            let listed = try await events.list(merchant: context.merchant, status: status, beforeSequence: try page.afterSequence, limit: page.limit + 1)
            return try JSONCoding.response(
                Page(fetched: listed.map(WebhookEventResponse.init), limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
        api.adminOnly.post("webhook-events/:id/resend") { _, context in
            let queued = try await events.resend(id: try context.parameters.require("id"), merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(WebhookEventResponse(queued), status: .accepted)
        }
    }
}

/// A webhook event's delivery state in JSON; never its body.
struct WebhookEventResponse: Encodable {
    var id: String
    var type: String
    var status: String
    var attempts: Int
    @ExplicitNull var lastError: String?
    @ExplicitNull var nextAttemptAt: Date?
    var createdAt: Date
    @ExplicitNull var deliveredAt: Date?
    var expiresAt: Date
    /// The cursor's position; not in the JSON.
    var sequence: Int64

    init(_ event: WebhookEvent) {
        id = event.id
        type = event.type
        status = event.status.rawValue
        attempts = event.attempts
        lastError = event.lastError
        nextAttemptAt = event.status == .pending ? event.nextAttemptAt : nil
        createdAt = event.createdAt
        deliveredAt = event.deliveredAt
        expiresAt = event.expiresAt
        sequence = event.sequence
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, status, attempts, lastError, nextAttemptAt, createdAt, deliveredAt, expiresAt
    }
}

extension WebhookEventError: APIErrorConvertible {
    /// 404 for an event the merchant does not have.
    public var apiError: APIError {
        switch self {
        case .notFound: .notFound("webhook event", param: "id")
        }
    }
}
