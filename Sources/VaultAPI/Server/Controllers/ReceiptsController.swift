import Foundation
import Hummingbird
import Vault

/// `GET /v1/receipts`: the merchant's e-mail receipts, newest first, optionally of one `status`
/// (`pending`, `sent`, `failed`), with attempts, the last refusal and the masked recipient (the
/// address itself stays sealed). For `admin` and `readonly` keys.
struct ReceiptsController {
    let store: any ReceiptStore
    /// Seals the list's cursors.
    let cursorKeys: ListCursorKeys

    func addRoutes(to api: APIRoutes) {
        api.admitting(.admin, .readonly).get("receipts") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "receipts")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            var status: ReceiptStatus?
            if let text = request.uri.queryParameters["status"] {
                guard let value = ReceiptStatus(rawValue: String(text)) else {
                    throw APIError.invalid("status must be pending, sent or failed.", code: "invalid_value", param: "status")
                }
                status = value
            }
            let found = try await store.receipts(merchantID: context.merchant.id, status: status, beforeSequence: try page.afterSequence, limit: page.limit + 1)
            return try JSONCoding.response(Page(fetched: found.map(ReceiptResponse.init), limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
    }
}

/// An e-mail receipt in JSON: never the address, only its masked form.
struct ReceiptResponse: Encodable, Sendable {
    var id: String
    var transactionId: String
    var event: String
    var status: String
    var recipient: String
    var attempts: Int
    @ExplicitNull var lastError: String?
    var createdAt: Date
    @ExplicitNull var nextAttemptAt: Date?
    @ExplicitNull var sentAt: Date?
    let sequence: Int64

    init(_ receipt: EmailReceipt) {
        id = receipt.id
        transactionId = receipt.transactionID
        event = receipt.event.rawValue
        status = receipt.status.rawValue
        recipient = receipt.maskedRecipient
        attempts = receipt.attempts
        lastError = receipt.lastError
        createdAt = receipt.createdAt
        nextAttemptAt = receipt.status == .pending ? receipt.nextAttemptAt : nil
        sentAt = receipt.sentAt
        sequence = receipt.sequence
    }

    private enum CodingKeys: String, CodingKey {
        case id, transactionId, event, status, recipient, attempts, lastError, createdAt, nextAttemptAt, sentAt
    }
}
