import Foundation
public import Hummingbird

/// An error answered with the error envelope: `{"error": {"type", "code", "message", "param"}}`.
///
/// Messages are written for API users and never contain card data, CVVs or secrets.
public struct APIError: Error, HTTPResponseError, Sendable {
    /// HTTP status.
    public var status: HTTPResponse.Status
    /// Broad class: `invalid_request_error`, `authentication_error`, `permission_error`, `not_found_error`,
    /// `conflict_error`, `idempotency_error`, `rate_limit_error`, `card_error`, `api_error`.
    public var type: String
    /// Machine-readable reason.
    public var code: String
    /// Human-readable sentence.
    public var message: String
    /// The request field at fault, when one is.
    public var param: String?
    /// Extra response headers (e.g. `Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPFields = [:]
    /// The recorded transaction, JSON-encoded, sent beside the error as `"transaction"` (402, 502).
    public var transaction: [UInt8]?

    /// Creates an error.
    public init(status: HTTPResponse.Status, type: String, code: String, message: String, param: String? = nil) {
        self.status = status
        self.type = type
        self.code = code
        self.message = message
        self.param = param
    }

    /// The JSON envelope.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: envelope)))
    }

    /// The envelope's bytes.
    public var envelope: [UInt8] {
        struct Body: Encodable {
            struct Detail: Encodable {
                var type: String
                var code: String
                var message: String
                @ExplicitNull var param: String?
            }
            var error: Detail
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Body(error: .init(type: type, code: code, message: message, param: param))
        var bytes = Array((try? encoder.encode(body)) ?? Data())
        if let transaction, bytes.last == UInt8(ascii: "}") {
            bytes.removeLast()
            bytes += Array(#","transaction":"#.utf8) + transaction + [UInt8(ascii: "}")]
        }
        return bytes
    }
}

extension APIError {
    /// 400: the body is not JSON, or the request is malformed.
    public static func malformed(_ message: String, code: String = "invalid_json", param: String? = nil) -> APIError {
        APIError(status: .badRequest, type: "invalid_request_error", code: code, message: message, param: param)
    }

    /// 401: no valid API key.
    public static let unauthenticated: APIError = {
        var error = APIError(
            status: .unauthorized, type: "authentication_error", code: "invalid_api_key",
            message: "A valid API key is required: send 'Authorization: Bearer <api key>'.")
        error.headers[.wwwAuthenticate] = "Bearer"
        return error
    }()

    /// 503: the database cannot be reached; nothing was done, retry after a second.
    public static let databaseUnavailable: APIError = {
        var error = APIError(
            status: .serviceUnavailable, type: "api_error", code: "database_unavailable",
            message: "The database cannot be reached; nothing was done. Retry shortly.")
        error.headers[.retryAfter] = "1"
        return error
    }()

    /// 403: the key's role may not do this.
    public static func forbidden(role: String) -> APIError {
        APIError(status: .forbidden, type: "permission_error", code: "role_not_allowed", message: "An API key with role '\(role)' may not do this.")
    }

    /// 404: no such object for this merchant (or no such route).
    public static func notFound(_ what: String, param: String? = nil) -> APIError {
        APIError(status: .notFound, type: "not_found_error", code: "resource_missing", message: "No such \(what).", param: param)
    }

    /// 409: the request conflicts with the current state.
    public static func conflict(_ message: String, code: String, param: String? = nil) -> APIError {
        APIError(status: .conflict, type: "conflict_error", code: code, message: message, param: param)
    }

    /// 422: well-formed JSON that breaks a rule.
    public static func invalid(_ message: String, code: String, param: String?) -> APIError {
        APIError(status: .unprocessableContent, type: "invalid_request_error", code: code, message: message, param: param)
    }

    /// 413: the body is larger than the configured limit.
    public static func tooLarge(limit: Int) -> APIError {
        APIError(
            status: .contentTooLarge, type: "invalid_request_error", code: "body_too_large",
            message: "The request body is larger than \(limit) bytes.")
    }

    /// 415: the body is not `application/json`.
    public static let unsupportedMediaType = APIError(
        status: .unsupportedMediaType, type: "invalid_request_error", code: "unsupported_media_type",
        message: "Request bodies must be JSON with 'Content-Type: application/json'.")

    /// 500: something failed on our side; the detail is only in the log.
    public static func `internal`(requestID: String) -> APIError {
        APIError(
            status: .internalServerError, type: "api_error", code: "internal_error",
            message: "An internal error occurred (request \(requestID)); it has been logged.")
    }
}

/// Errors of other modules that know the API error they stand for.
public protocol APIErrorConvertible: Error {
    /// The API error to answer with.
    var apiError: APIError { get }
}
