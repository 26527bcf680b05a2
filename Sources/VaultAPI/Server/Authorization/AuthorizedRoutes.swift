import Hummingbird
import Vault

/// Where `/v1` routes are declared: every route is added through a group that states the roles it
/// admits, and that group refuses every other role (403) before anything reads the body.
///
/// `adminOnly` is the default, for every write and every operator's view; a group that also admits
/// `readonly` or `runner` keys says so where its routes are declared.
struct APIRoutes {
    /// The `/v1` group once the caller is authenticated and within its rate limit.
    let authenticated: RouterGroup<AuthenticatedContext>
    /// What runs after the role check on every route (query, body, idempotency, timeout).
    let afterRoleCheck: (RouterGroup<AuthenticatedContext>) -> RouterGroup<AuthenticatedContext>
    /// The table the declarations are recorded in.
    let authorization: RouteAuthorization
    /// The routes' prefix as the router prints it (`/v1`).
    let prefix: RouterPath

    /// A group whose routes only keys of `roles` may call.
    func admitting(_ roles: APIKeyRole...) -> AuthorizedRoutes {
        let admitted = Set(roles)
        precondition(!admitted.isEmpty, "a route group admits at least one role")
        let group = afterRoleCheck(authenticated.group().add(middleware: RoleMiddleware(admits: admitted)))
        return AuthorizedRoutes(group: group, roles: admitted, authorization: authorization, prefix: prefix)
    }

    /// A group only `admin` keys may call.
    var adminOnly: AuthorizedRoutes { admitting(.admin) }
}

/// A route group with its admitted roles: each route added is recorded in the
/// ``RouteAuthorization`` table with them.
struct AuthorizedRoutes: RouterMethods {
    typealias Context = AuthenticatedContext

    let group: RouterGroup<AuthenticatedContext>
    /// The roles every route of this group admits.
    let roles: Set<APIKeyRole>
    let authorization: RouteAuthorization
    let prefix: RouterPath

    /// Adds the route and records its roles.
    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == AuthenticatedContext {
        authorization.record(method: method, path: prefix.appendingPath(path), roles: roles)
        group.on(path, method: method, responder: responder)
        return self
    }

    /// Adds middleware to the routes added after it.
    func add(middleware: any MiddlewareProtocol<Request, Response, AuthenticatedContext>) -> Self {
        group.add(middleware: middleware)
        return self
    }
}

/// Refuses (403) a key whose role the route does not admit. Decided from the head: it runs before
/// the body is read and before the idempotency store is asked.
struct RoleMiddleware: RouterMiddleware {
    typealias Context = AuthenticatedContext

    /// The roles the route admits.
    let admits: Set<APIKeyRole>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let role = context.identity.apiKey.role
        guard admits.contains(role) else { throw APIError.forbidden(role: role.rawValue) }
        return try await next(request, context)
    }
}
