public import Hummingbird
public import Vault

/// Who is calling: the merchant and API key behind the bearer token.
public struct Identity: Sendable {
    /// The merchant every object access is scoped to.
    public var merchant: Merchant
    /// The key used, with its role.
    public var apiKey: APIKeyRecord

    /// The audit actor name, `apikey:<id>`.
    public var actor: String { "apikey:" + apiKey.id }
}

/// The request context of every route: the identity is filled in by the authentication middleware.
public struct VaultRequestContext: RequestContext {
    /// Hummingbird's core storage.
    public var coreContext: CoreRequestContextStorage
    /// Set once the bearer key was checked.
    public var identity: Identity?

    /// Creates the context for a new request.
    public init(source: Source) {
        self.coreContext = .init(source: source)
    }
}

/// The context of `/v1` routes: an identity is guaranteed, so a handler cannot forget to scope by merchant.
public struct AuthenticatedContext: ChildRequestContext {
    /// Hummingbird's core storage.
    public var coreContext: CoreRequestContextStorage
    /// The caller.
    public let identity: Identity

    /// The caller's merchant.
    public var merchant: Merchant { identity.merchant }

    /// Derives the context; 401 when authentication did not succeed.
    public init(context: VaultRequestContext) throws {
        guard let identity = context.identity else { throw APIError.unauthenticated }
        self.coreContext = context.coreContext
        self.identity = identity
    }
}
