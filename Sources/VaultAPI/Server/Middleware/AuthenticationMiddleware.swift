import Foundation
import Hummingbird
import Logging
import Vault

/// Checks `Authorization: Bearer <api key>` and fills in the caller's identity; 401 otherwise, or
/// 429 once the client address has failed too often (``FailedAuthenticationLimiter``).
///
/// Decided from the head alone: it runs before anything reads the request body, so an
/// unauthenticated client cannot make the server buffer one.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext

    let merchants: MerchantService
    /// Where failed authentications are counted per client address (``RequestLimitScope/failedAuthentication``).
    let limits: any RequestLimitStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], let bearer = Self.bearerToken(in: header),
            let (merchant, key, customFields) = try await merchants.authenticate(bearer: bearer)
        else {
            let subject = FailedAuthenticationLimiter.key(for: context.clientAddress)
            // A store that cannot be reached answers 401 (the limiter only ever slows failing requests).
            switch (try? await limits.take(.failedAuthentication, subject: subject)) ?? .allowed {
            case .allowed: throw APIError.unauthenticated
            case .limited(let seconds): throw APIError.authenticationRateLimited(retryAfterSeconds: seconds)
            }
        }
        context.caller.record(merchantID: merchant.id, apiKeyID: key.id)
        var context = context
        context.identity = Identity(merchant: merchant, apiKey: key, customFields: customFields)
        context.logger[metadataKey: "merchant"] = "\(merchant.id)"
        context.logger[metadataKey: "apiKey"] = "\(key.id)"
        return try await next(request, context)
    }

    /// The token of `Bearer <token>` (scheme in any case, spaces and tabs around the token ignored),
    /// or nil for another scheme or an empty token.
    static func bearerToken(in header: String) -> String? {
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count else { return nil }
        for index in scheme.indices where bytes[index] != scheme[index] {
            guard scheme[index] != UInt8(ascii: " "), bytes[index] == scheme[index] - 0x20 else { return nil }
        }
        let token = HeaderBytes.trimmed(bytes[scheme.count...])
        return token.isEmpty ? nil : String(decoding: token, as: UTF8.self)
    }
}
