import Foundation
import Hummingbird
public import Payments
import Scheduler
import Vault

/// The transaction routes of the API.
struct TransactionsController {
    let transactions: TransactionService
    /// Seals the list's cursors.
    let cursorKeys: ListCursorKeys
    /// Bounds each merchant's concurrent `q` searches.
    let searchSlots: MerchantSearchSlots
    /// How many transactions one `q` search examines (`server.searchScanLimit`).
    let searchWindow: TransactionSearchWindow

    func addRoutes(to api: APIRoutes) {
        let admin = api.adminOnly
        let readers = api.admitting(.admin, .readonly)
        admin.post("transactions") { request, context in
            let body = try await JSONCoding.decode(TransactionRequest.self, from: request)
            let transaction = try await transactions.create(
                try body.validated(for: context.merchant), merchant: context.merchant, actor: context.identity.actor, id: context.reservedTransactionID,
                definitions: context.identity.customFields)
            let response = await transactions.response(transaction, merchant: context.merchant)
            return try JSONCoding.response(response, status: .created)
        }
        readers.get("transactions") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "transactions")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            let search = try TransactionSearch(parameters: request.uri.queryParameters, page: page, merchant: context.merchant)
            // The domain decides what the free text also means (a holder name, a local date); the store only matches it.
            let filter = try await transactions.resolvingText(of: search.filter, merchant: context.merchant)
            let read = {
                try await transactions.search(
                    merchant: context.merchant, filter: filter, order: search.order, afterSequence: search.afterSequence,
                    limit: page.limit + 1, window: searchWindow)
            }
            let found = filter.text == nil ? try await read() : try await searchSlots.run(merchantID: context.merchant.id, read)
            let order = search.order
            let responses = await transactions.responses(found.transactions, merchant: context.merchant)
            var listing = try Page(fetched: responses, limit: page.limit) {
                try cursors.cursor(after: TransactionSearch.cursorKey(order: order, sequence: $0.sequence))
            }
            if let resume = found.resumeAfter {
                listing.nextCursor = try cursors.cursor(after: TransactionSearch.cursorKey(order: order, sequence: resume))
            }
            return try JSONCoding.response(listing)
        }
        readers.get("transactions/:id") { _, context in
            let transaction = try await transactions.get(id: try context.parameters.require("id"), merchant: context.merchant)
            let response = await transactions.response(transaction, merchant: context.merchant)
            return try JSONCoding.response(response)
        }
        // Follow-ups read their body like every other (an empty one is the whole remainder; for a
        // void, `amount` is a partial reversal).
        addFollowUp("capture", to: admin) { try await $0.capture(id: $1, amount: $2.amount, merchant: $3, actor: $4, childID: $5, receiptEmail: $2.receiptEmail) }
        addFollowUp("void", to: admin) { try await $0.void(id: $1, amount: $2.amount, merchant: $3, actor: $4, childID: $5, receiptEmail: $2.receiptEmail) }
        addFollowUp("refund", to: admin) { try await $0.refund(id: $1, amount: $2.amount, merchant: $3, actor: $4, childID: $5, receiptEmail: $2.receiptEmail) }
    }

    /// `POST /v1/transactions/{id}/<action>`: 201 with the follow-up (recorded under the request's
    /// reserved transaction id, when it has an Idempotency-Key).
    private func addFollowUp(
        _ action: String, to group: AuthorizedRoutes,
        _ run: @escaping @Sendable (TransactionService, String, FollowUpAmount, Merchant, String, String?) async throws -> Transaction
    ) {
        group.post("transactions/:id/\(action)") { request, context in
            let body = try await Self.optionalAmount(request)
            let child = try await run(
                transactions, try context.parameters.require("id"), body, context.merchant, context.identity.actor,
                context.reservedTransactionID)
            let response = await transactions.response(child, merchant: context.merchant)
            return try JSONCoding.response(response, status: .created)
        }
    }

    /// Follow-ups may come without a body (the whole remainder); a body is decoded like any other
    /// (400 for malformed JSON, duplicate keys and unknown fields, 422 for bad values).
    static func optionalAmount(_ request: Request) async throws -> FollowUpAmount {
        var request = request
        let body = try await request.collectBody(upTo: .max)
        guard body.readableBytes > 0 else { return FollowUpAmount() }
        return try await JSONCoding.decode(FollowUpAmount.self, from: request)
    }
}

/// A transaction in JSON.
struct TransactionResponse: Encodable {
    struct Gateway: Encodable {
        var name: String
        @ExplicitNull var transactionId: String?
        @ExplicitNull var authCode: String?
        @ExplicitNull var responseCode: String?
        @ExplicitNull var responseText: String?
        @ExplicitNull var avsResult: String?
        @ExplicitNull var cvvResult: String?
    }

    struct Decline: Encodable {
        var code: String
        var category: String
    }

    /// How the transaction used a stored card: `initial` (stored by it) or `subsequent`, who
    /// initiated it, and the network's id for it, masked.
    struct StoredCredential: Encodable {
        var type: String
        var initiatedBy: String
        @ExplicitNull var networkTransactionId: String?
    }

    var id: String
    var type: String
    var status: String
    var state: Int
    var subState: Int
    var amount: Int64
    var currency: String
    var capturedAmount: Int64
    var refundedAmount: Int64
    var voidedAmount: Int64
    var refundableAmount: Int64
    var reverseMode: String
    @ExplicitNull var voidableUntil: Date?
    @ExplicitNull var secureCardReference: String?
    @ExplicitNull var merchantReference: String?
    @ExplicitNull var cardType: String?
    @ExplicitNull var maskedNumber: String?
    @ExplicitNull var scheduleId: String?
    @ExplicitNull var stepId: String?
    @ExplicitNull var attempt: Int?
    @ExplicitNull var parentId: String?
    @ExplicitNull var description: String?
    var createdAt: Date
    var updatedAt: Date
    var gateway: Gateway
    @ExplicitNull var decline: Decline?
    @ExplicitNull var errorCode: String?
    @ExplicitNull var storedCredential: StoredCredential?
    let sequence: Int64

    /// The JSON of `transaction`, with the reversal it allows at `now` under the merchant's `policy`.
    init(_ transaction: Transaction, policy: ReversalPolicy, now: Date = Date()) {
        id = transaction.id
        type = transaction.type.rawValue
        status = transaction.status.rawValue
        (state, subState) = transaction.stateCodes
        amount = transaction.amount
        currency = transaction.currency.code
        capturedAmount = transaction.capturedAmount
        refundedAmount = transaction.refundedAmount
        voidedAmount = transaction.voidedAmount
        let reversal = transaction.reversalOptions(policy, now: now)
        refundableAmount = reversal.refundableAmount
        reverseMode = reversal.mode.rawValue
        voidableUntil = reversal.voidableUntil
        secureCardReference = transaction.secureCardReference
        merchantReference = transaction.merchantReference
        cardType = transaction.cardType
        maskedNumber = transaction.maskedNumber
        scheduleId = transaction.scheduleID
        stepId = transaction.stepID
        attempt = transaction.attempt
        parentId = transaction.parentID
        description = transaction.description
        createdAt = transaction.createdAt
        updatedAt = transaction.updatedAt
        gateway = Gateway(
            name: transaction.gateway, transactionId: transaction.gatewayTransactionID, authCode: transaction.authCode,
            responseCode: transaction.responseCode, responseText: transaction.responseText, avsResult: transaction.avsResult,
            cvvResult: transaction.cvvResult)
        decline = transaction.declineCode.map { Decline(code: $0, category: transaction.declineCategory ?? "hard") }
        errorCode = transaction.errorCode
        storedCredential = transaction.storedCredential.map { kind in
            StoredCredential(
                type: kind.rawValue, initiatedBy: kind == .subsequent && transaction.scheduleID != nil ? "merchant" : "customer",
                networkTransactionId: transaction.networkTransactionID)
        }
        sequence = transaction.sequence
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, status, state, subState, amount, currency, capturedAmount, refundedAmount, voidedAmount, refundableAmount, reverseMode
        case voidableUntil, secureCardReference, merchantReference
        case cardType, maskedNumber, scheduleId, stepId, attempt, parentId, description, createdAt, updatedAt, gateway, decline, errorCode
        case storedCredential
    }
}

extension TransactionError: APIErrorConvertible {
    /// 422 for rule violations, 404, 409 for state conflicts, 402 for declines and 502 for gateway failures
    /// (both with the recorded transaction beside the error).
    public var apiError: APIError {
        switch self {
        case .invalid(let field, let code, let message):
            return .invalid(message, code: code, param: field)
        case .notFound:
            return .notFound("transaction", param: "id")
        case .notAllowed(let code, let message):
            return .conflict(message, code: code)
        case .notPermitted(let code, let message):
            return APIError(status: .forbidden, type: "permission_error", code: code, message: message)
        case .declined(let transaction):
            var error = APIError(
                status: .init(code: 402, reasonPhrase: "Payment Required"), type: "card_error", code: transaction.declineCode ?? "card_declined",
                message: "The gateway declined transaction \(transaction.id) (\(transaction.declineCategory ?? "hard") decline).")
            error.transaction = try? Array(JSONCoding.encoder.encode(TransactionResponse(transaction, policy: .settledOnly)))
            return error
        case .gatewayFailed(let transaction):
            var error = APIError(
                status: .badGateway, type: "api_error", code: transaction.mayHaveGoneThrough ? "gateway_in_doubt" : "gateway_error",
                message: transaction.mayHaveGoneThrough
                    ? "The gateway's answer for transaction \(transaction.id) was lost: it may have gone through. Nothing is sent again; "
                        + "the vault looks it up at the gateway and records the outcome (GET /v1/transactions/\(transaction.id)), or sends it "
                        + "to review (needs_review) when the gateway cannot prove it. Retrying with the same Idempotency-Key answers the "
                        + "settled transaction; do not retry with a new key."
                    : "The gateway could not process transaction \(transaction.id); nothing was charged.")
            error.transaction = try? Array(JSONCoding.encoder.encode(TransactionResponse(transaction, policy: .settledOnly)))
            return error
        case .gatewayNotConfigured:
            return APIError(
                status: .badGateway, type: "api_error", code: "gateway_not_configured",
                message: "The merchant's gateway is not configured (missing credentials); see vault merchant update.")
        }
    }
}

extension ReversalPolicy {
    /// For a transaction that failed or was declined (the 402 and 502 answers): nothing is
    /// reversible whatever the merchant's set-up, so no gateway is asked.
    static let settledOnly = ReversalPolicy(window: TransactionService.defaultReversalWindow, partialVoid: false)
}

extension TransactionService {
    /// The JSON of `transaction` with its reversal options under the merchant's set-up.
    func response(_ transaction: Transaction, merchant: Merchant) async -> TransactionResponse {
        await responses([transaction], merchant: merchant)[0]
    }

    /// The JSON of `transactions`; the merchant's gateway is asked whether it reverses part of a
    /// transaction only when one of them could be partly voided now.
    func responses(_ transactions: [Transaction], merchant: Merchant, now: Date = Date()) async -> [TransactionResponse] {
        var policy = ReversalPolicy(window: reversalWindowLength, partialVoid: false)
        if transactions.contains(where: { $0.allowsPartialVoid && now < $0.voidableUntil(window: policy.window) }) {
            policy = await reversalPolicy(for: merchant)
        }
        return transactions.map { TransactionResponse($0, policy: policy, now: now) }
    }
}
