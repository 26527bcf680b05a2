import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// The review queue, for the operator who clears what a gateway outage left in doubt:
/// `GET /v1/review-queue` (steps and one-off transactions in review, oldest first, each with the
/// order reference the gateway stores), `POST /v1/review-queue/resolve` (many resolutions at once,
/// each as its single resolve route) and `POST /v1/review-queue/lookup` (ask the gateways again now).
struct ReviewQueueController {
    let queue: ReviewQueueService
    let cursorKeys: ListCursorKeys

    func addRoutes(to api: APIRoutes) {
        api.admitting(.admin, .readonly).get("review-queue") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "review-queue")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            let items = try await queue.list(merchant: context.merchant, afterSequence: try page.afterSequence, limit: page.limit + 1)
            return try JSONCoding.response(
                Page(fetched: items.map(ReviewQueueItemResponse.init), limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
        api.adminOnly.post("review-queue/resolve") { request, context in
            let body = try await JSONCoding.decode(ReviewQueueResolveRequest.self, from: request)
            let results = try await queue.resolve(body.items, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ReviewResultsResponse(data: results.map(ReviewResolutionResultResponse.init)))
        }
        api.adminOnly.post("review-queue/lookup") { request, context in
            let body = try await JSONCoding.decode(ReviewQueueLookupRequest.self, from: request)
            let results = try await queue.lookup(body.items, merchant: context.merchant)
            return try JSONCoding.response(ReviewResultsResponse(data: results.map(ReviewLookupResultResponse.init)))
        }
    }
}

/// One item of the review queue in JSON.
struct ReviewQueueItemResponse: Encodable {
    var kind: String
    var id: String
    var transactionId: String
    @ExplicitNull var scheduleId: String?
    @ExplicitNull var dueAt: Date?
    var type: String
    var amount: Int64
    var currency: String
    @ExplicitNull var secureCardReference: String?
    @ExplicitNull var maskedNumber: String?
    var gateway: String
    var orderReference: String
    var gatewayOrderReference: String
    @ExplicitNull var reason: String?
    var since: Date
    /// The cursor's position; not in the JSON.
    var sequence: Int64

    init(_ item: ReviewQueueItem) {
        kind = item.kind.rawValue
        id = item.id
        transactionId = item.transactionID
        scheduleId = item.scheduleID
        dueAt = item.dueAt
        type = item.type.rawValue
        amount = item.amount
        currency = item.currency.code
        secureCardReference = item.secureCardReference
        maskedNumber = item.maskedNumber
        gateway = item.gateway
        orderReference = item.orderReference
        gatewayOrderReference = item.gatewayOrderReference
        reason = item.reason
        since = item.since
        sequence = item.sequence
    }

    private enum CodingKeys: String, CodingKey {
        case kind, id, transactionId, scheduleId, dueAt, type, amount, currency, secureCardReference, maskedNumber, gateway, orderReference
        case gatewayOrderReference, reason, since
    }
}

/// `{"data": [...]}`: one result per item, in the order of the request.
struct ReviewResultsResponse<Item: Encodable>: Encodable {
    var data: [Item]
}

/// Why an item was refused, in the single routes' words.
struct ReviewItemErrorResponse: Encodable {
    var code: String
    var message: String
}

/// What became of one item of a bulk resolution: `applied` with the status after it, or not,
/// with the error its single resolve route would have answered.
struct ReviewResolutionResultResponse: Encodable {
    var kind: String
    var id: String
    var applied: Bool
    @ExplicitNull var status: String?
    @ExplicitNull var error: ReviewItemErrorResponse?

    init(_ result: ReviewItemResult) {
        kind = result.kind.rawValue
        id = result.id
        switch result.outcome {
        case .applied(let status):
            applied = true
            self.status = status
        case .refused(let code, let message):
            applied = false
            error = ReviewItemErrorResponse(code: code, message: message)
        default:
            applied = false
            error = ReviewItemErrorResponse(code: "resolution_failed", message: "This item was not resolved.")
        }
    }
}

/// What a gateway said of one item: `found` (with how it ended there and its id at the gateway),
/// `not_found` (no record over the whole window), `unavailable` (with why), or `refused` (not
/// looked up, with why).
struct ReviewLookupResultResponse: Encodable {
    var kind: String
    var id: String
    var result: String
    @ExplicitNull var gatewayOutcome: String?
    @ExplicitNull var gatewayTransactionId: String?
    @ExplicitNull var reason: String?
    @ExplicitNull var error: ReviewItemErrorResponse?

    init(_ item: ReviewItemResult) {
        kind = item.kind.rawValue
        id = item.id
        switch item.outcome {
        case .found(let outcome, let gatewayTransactionID):
            result = "found"
            gatewayOutcome = outcome
            gatewayTransactionId = gatewayTransactionID
        case .notFound:
            result = "not_found"
        case .unavailable(let reason):
            result = "unavailable"
            self.reason = reason
        case .refused(let code, let message):
            result = "refused"
            error = ReviewItemErrorResponse(code: code, message: message)
        case .applied:
            result = "refused"
            error = ReviewItemErrorResponse(code: "not_looked_up", message: "This item was not looked up.")
        }
    }
}
