import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Payments
import Vault

/// `Idempotency-Key` on POSTs: the first response to a key is stored; the same key with
/// the same request replays it; the same key with another request is a 409.
///
/// Responses of 5xx are not stored (the claim is released) so the client may retry, except a 502 for
/// a transaction whose gateway answer was lost: it may have gone through, so running the request
/// again could charge twice. That key stays bound to the transaction, and a retry answers what the
/// transaction is now (201 once the reconciler found it approved, 402 declined, 502 while still in
/// doubt or in review) without sending anything to the gateway.
///
/// A claim names its holder and expires (``IdempotencyService``): a server killed mid-request leaves
/// the key claimed only until then. The next retry takes the claim over; if the dead server had
/// recorded the request's transaction (under the id reserved with the claim) it answers that
/// transaction as it is now, exactly as for a lost gateway answer, else (nothing was sent) it runs
/// the request. The request is
/// remembered as a keyed MAC and the response sealed (`IdempotencyService`): nothing stored lets a
/// card number or holder data be recovered without the merchant's keys.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AuthenticatedContext

    let service: IdempotencyService
    /// Reads the transaction a stored in-doubt answer names, to answer a retry with what it is now.
    let transactions: TransactionService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[.idempotencyKey] else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.malformed(
                "Idempotency-Key must be 1-255 visible ASCII characters.", code: "invalid_idempotency_key", param: "Idempotency-Key")
        }
        // Keys are stored (and shown in support tools) in clear: a card number must not be one.
        if CardNumberShape.contains(key) {
            throw APIError.invalid(
                "Idempotency-Key looks like it contains a card number; use a random or opaque key.", code: CardNumberShape.errorCode,
                param: "Idempotency-Key")
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        var fingerprint = Array("\(request.method.rawValue) \(request.uri.path)?\(request.uri.query ?? "")\n".utf8)
        fingerprint.append(contentsOf: body.readableBytesView)
        let merchantID = context.merchant.id
        switch try await service.claim(merchantID: merchantID, key: key, request: fingerprint, transactionID: Transaction.makeID()) {
        case .replay(let status, let stored):
            if status == 502, let id = InDoubtAnswer.transactionID(in: stored) {
                return try await replayInDoubt(transactionID: id, request: request, context: context)
            }
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
            headers[.idempotentReplayed] = "true"
            let buffer = stored.withUnsafeBytes { ByteBuffer(bytes: $0) }
            return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: buffer))
        case .responseDestroyed:
            throw APIError(
                status: .conflict, type: "idempotency_error", code: "idempotency_response_destroyed",
                message: "The response to this Idempotency-Key was destroyed when its card was purged; the request is not run again.",
                param: "Idempotency-Key")
        case .mismatch:
            throw APIError(
                status: .conflict, type: "idempotency_error", code: "idempotency_key_reused",
                message: "This Idempotency-Key was already used with a different request.", param: "Idempotency-Key")
        case .inProgress:
            throw APIError(
                status: .conflict, type: "idempotency_error", code: "idempotency_key_in_use",
                message: "A request with this Idempotency-Key is still in progress; retry later.", param: "Idempotency-Key")
        case .started(let claim):
            return try await run(request, context: context, claim: claim, next: next)
        case .takenOver(let claim):
            // The server that ran the first request died. A transaction it recorded may have reached
            // the gateway: answer it as it is now (in doubt until the reconciler settles it from the
            // gateway), never run it again. One it never recorded never reached the gateway.
            guard let transaction = try await transactions.find(id: claim.transactionID, merchant: context.merchant) else {
                return try await run(request, context: context, claim: claim, next: next)
            }
            let response = try await answer(transaction, request: request, context: context)
            return try await keep(response, inDoubt: transaction.mayHaveGoneThrough, claim: claim)
        }
    }

    /// Runs the request under `claim`, then stores its answer (or releases the key after a server error).
    private func run(
        _ request: Request, context: Context, claim: IdempotencyService.Claim, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.reservedTransactionID = claim.transactionID
        let response: Response
        var inDoubt = false
        do {
            response = try await next(request, context)
        } catch {
            if case TransactionError.gatewayFailed(let transaction) = error, transaction.mayHaveGoneThrough { inDoubt = true }
            response = ErrorEnvelopeMiddleware<Context>.response(for: error, request: request, context: context)
        }
        return try await keep(response, inDoubt: inDoubt, claim: claim)
    }

    /// Stores `response` as the key's answer and returns it, its body read once; after a server
    /// error that sent nothing (not `inDoubt`) releases the key instead, so the client may retry.
    private func keep(_ response: Response, inDoubt: Bool, claim: IdempotencyService.Claim) async throws -> Response {
        guard response.status.code < 500 || inDoubt else {
            try await service.release(claim)
            return response
        }
        var response = response
        let collector = BodyCollector()
        try await response.body.write(collector)
        let bytes = collector.bytes
        response.body = ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        try await service.complete(claim, status: Int(response.status.code), body: bytes)
        return response
    }
}

extension IdempotencyMiddleware {
    /// The answer to a retry of a request whose transaction was in doubt: the transaction as it is
    /// now, as the route would have answered had the gateway's answer not been lost.
    private func replayInDoubt(transactionID: String, request: Request, context: Context) async throws -> Response {
        var response = try await answer(try await transactions.get(id: transactionID, merchant: context.merchant), request: request, context: context)
        response.headers[.idempotentReplayed] = "true"
        return response
    }

    /// What the route answers for `transaction` as it is now: 201, 402 declined, or 502 while it
    /// failed, is in doubt or awaits review.
    private func answer(_ transaction: Transaction, request: Request, context: Context) async throws -> Response {
        switch transaction.status {
        case .declined:
            ErrorEnvelopeMiddleware<Context>.response(for: TransactionError.declined(transaction), request: request, context: context)
        case .error, .inDoubt, .needsReview, .pending:
            ErrorEnvelopeMiddleware<Context>.response(for: TransactionError.gatewayFailed(transaction), request: request, context: context)
        default:
            try JSONCoding.response(await transactions.response(transaction, merchant: context.merchant), status: .created)
        }
    }
}

/// Reads a stored in-doubt answer (`{"error": {...}, "transaction": {"id": ...}}`).
enum InDoubtAnswer {
    private struct Body: Decodable {
        struct Error: Decodable { var code: String }
        struct Transaction: Decodable { var id: String }
        var error: Error
        var transaction: Transaction?
    }

    /// The id of the transaction a stored 502 `gateway_in_doubt` answer names; nil for any other answer.
    static func transactionID(in stored: SecureBytes) -> String? {
        stored.withUnsafeBytes { bytes in
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)), body.error.code == "gateway_in_doubt" else { return nil }
            return body.transaction?.id
        }
    }
}

/// A response body writer that keeps what is written, so a response can be stored and replayed.
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    // Written by one task at a time: the response body is written sequentially before `bytes` is read.
    private(set) var bytes: [UInt8] = []

    func write(_ buffer: ByteBuffer) async throws {
        bytes.append(contentsOf: buffer.readableBytesView)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
