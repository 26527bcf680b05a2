import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Vault

/// The outermost middleware but `RequestMetricsMiddleware`: gives every response a request id
/// header, logs one access line, and turns every error into the error envelope. Unknown errors
/// become a bare 500 whose detail is only logged, never sent.
///
/// The access line says who asked: the merchant and API key ids the request authenticated as
/// (`-` when it did not) and the connection's remote address.
struct ErrorEnvelopeMiddleware<Context: VaultContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.response(for: error, request: request, context: context)
        }
        response.headers[.requestID] = context.id
        let caller = context.caller.recorded
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(AccessLog.path(request.uri.path)), "status": "\(response.status.code)",
                "durationMs": .string(AccessLog.milliseconds(ContinuousClock.now - started)),
                "merchant": .string(caller?.merchantID ?? "-"), "apiKey": .string(caller?.apiKeyID ?? "-"),
                "clientAddress": .string(context.clientAddress),
            ])
        return response
    }

    static func response(for error: any Error, request: Request, context: Context) -> Response {
        let apiError: APIError
        switch error {
        case let error as APIError:
            apiError = error
        case let error as any APIErrorConvertible:
            apiError = error.apiError
        case is NIOTooManyBytesError:
            apiError = .tooLarge(limit: context.maxUploadSize)
        case let error as HTTPError:
            apiError = Self.apiError(for: error)
        case let error as any StorageError where error.isUnavailable:
            // The database is unreachable: nothing was done, and the client may retry. Logged as a
            // warning (the outage is the operator's page, from /readyz and the logs' first line).
            context.logger.warning("database unavailable", metadata: ["error": "\(String(describing: error))"])
            apiError = .databaseUnavailable
        case let error as HTTPParserError:
            // The client broke HTTP/1.1 framing (a bad chunk size, CR or LF in a chunk extension):
            // its mistake, a 400, never logged as the server's error.
            apiError = .malformed("The request's HTTP/1.1 framing is invalid (\(error)).", code: "malformed_http", param: nil)
        default:
            context.logger.error(
                "unhandled error", metadata: ["errorType": "\(String(reflecting: type(of: error)))", "error": "\(String(describing: error))"])
            apiError = .internal(requestID: context.id)
        }
        if apiError.status.code >= 500, !(error is APIError), apiError.code != APIError.databaseUnavailable.code {
            context.logger.error("request failed", metadata: ["status": "\(apiError.status.code)"])
        }
        return (try? apiError.response(from: request, context: context)) ?? Response(status: .internalServerError)
    }

    static func apiError(for error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return .notFound("route")
        case .methodNotAllowed:
            return APIError(status: .methodNotAllowed, type: "invalid_request_error", code: "method_not_allowed", message: "This route does not take that method.")
        case .contentTooLarge: return .tooLarge(limit: 0)
        case .unauthorized: return .unauthenticated
        default:
            return APIError(
                status: error.status, type: error.status.code >= 500 ? "api_error" : "invalid_request_error",
                code: error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"),
                message: error.body ?? error.status.reasonPhrase)
        }
    }
}

/// Formatting of the access line.
enum AccessLog {
    /// The request path as logged: a card-number-shaped run in it (a card number sent where a
    /// reference belongs, plain or percent-encoded) is masked as `maskedNumber` shows a card.
    /// Paths with fewer than 13 digits and no percent-escapes (nearly all) are returned as they are.
    static func path(_ path: String) -> String {
        var digits = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") { return CardNumberShape.maskedURLPath(path) }
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { digits += 1 }
        }
        return digits < 13 ? path : CardNumberShape.maskedURLPath(path)
    }

    /// A duration in milliseconds with two decimals (`12.07`), without `String(format:)`'s cost.
    static func milliseconds(_ elapsed: Duration) -> String {
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`, echoed on every response.
    static var requestID: Self { .init("X-Request-Id")! }
    /// `Idempotency-Key` on POSTs.
    static var idempotencyKey: Self { .init("Idempotency-Key")! }
    /// `Idempotent-Replayed: true` on replayed responses.
    static var idempotentReplayed: Self { .init("Idempotent-Replayed")! }
}
