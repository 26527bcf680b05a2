import Foundation
import Hummingbird
import Logging
import Vault

/// Checks `Authorization: Bearer <api key>` and fills in the caller's identity; 401 otherwise.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = VaultRequestContext

    let merchants: MerchantService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw APIError.unauthenticated }
        let bearer = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let (merchant, key) = try await merchants.authenticate(bearer: bearer) else { throw APIError.unauthenticated }
        var context = context
        context.identity = Identity(merchant: merchant, apiKey: key)
        context.logger[metadataKey: "merchant"] = "\(merchant.id)"
        context.logger[metadataKey: "apiKey"] = "\(key.id)"
        return try await next(request, context)
    }
}

/// Role rules of SPEC §9: `readonly` may only read; `runner` may only start and read charge runs; `admin` may do everything.
struct RoleMiddleware: RouterMiddleware {
    typealias Context = AuthenticatedContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.allows(context.identity.apiKey.role, method: request.method, path: request.uri.path) else {
            throw APIError.forbidden(role: context.identity.apiKey.role.rawValue)
        }
        return try await next(request, context)
    }

    static func allows(_ role: APIKeyRole, method: HTTPRequest.Method, path: String) -> Bool {
        switch role {
        case .admin: return true
        case .readonly: return method == .get || method == .head
        case .runner: return path == "/v1/charge-runs" || path.hasPrefix("/v1/charge-runs/")
        }
    }
}
