public import Hummingbird
import NIOCore
import Synchronization
public import Vault

/// Who is calling: the merchant and API key behind the bearer token.
public struct Identity: Sendable {
    /// The merchant every object access is scoped to.
    public var merchant: Merchant
    /// The key used, with its role.
    public var apiKey: APIKeyRecord
    /// The merchant's custom-field definitions, read with the key (a registration checks against
    /// them); nil when the key was not read for this request (verified a moment ago), and a
    /// registration then reads them itself.
    public var customFields: StoredCustomFieldDefinitions?

    /// The audit actor name, `apikey:<id>`.
    public var actor: String { "apikey:" + apiKey.id }
}

/// What every context of this server carries for the access log and the failed-authentication limiter.
public protocol VaultContext: RequestContext {
    /// The connection's remote IP address (`-` when there is none, as in router tests).
    var clientAddress: String { get }
    /// Who the request turned out to be from, shared by the copies of the context down the chain.
    var caller: RequestCaller { get }
}

/// The merchant and API key a request authenticated as, recorded by the authentication middleware
/// and read by the access log, which runs outside it (with an earlier copy of the context).
public final class RequestCaller: Sendable {
    private let ids = Mutex<(merchantID: String, apiKeyID: String)?>(nil)

    /// Nobody yet.
    public init() {}

    /// Records the caller.
    func record(merchantID: String, apiKeyID: String) {
        ids.withLock { $0 = (merchantID, apiKeyID) }
    }

    /// The caller's merchant and key ids, nil before (or without) authentication.
    var recorded: (merchantID: String, apiKeyID: String)? { ids.withLock { $0 } }
}

/// The request context of every route: the identity is filled in by the authentication middleware.
public struct VaultRequestContext: VaultContext {
    /// Hummingbird's core storage.
    public var coreContext: CoreRequestContextStorage
    /// Set once the bearer key was checked.
    public var identity: Identity?
    /// The connection's remote IP address; never taken from `X-Forwarded-For`, which any client can write.
    public let clientAddress: String
    /// Recorded by the authentication middleware for the access log.
    public let caller = RequestCaller()

    /// Creates the context for a new request.
    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "-"
    }
}

/// The context of `/v1` routes: an identity is guaranteed, so a handler cannot forget to scope by merchant.
public struct AuthenticatedContext: ChildRequestContext, VaultContext {
    /// Hummingbird's core storage.
    public var coreContext: CoreRequestContextStorage
    /// The caller.
    public let identity: Identity

    /// The connection's remote IP address.
    public let clientAddress: String
    /// The caller, as recorded for the access log.
    public let caller: RequestCaller
    /// The id a transaction created by this request takes: reserved with its Idempotency-Key's
    /// claim, so a retry after this server died finds it. Nil without an Idempotency-Key.
    public var reservedTransactionID: String?

    /// The caller's merchant.
    public var merchant: Merchant { identity.merchant }

    /// Derives the context; 401 when authentication did not succeed.
    public init(context: VaultRequestContext) throws {
        guard let identity = context.identity else { throw APIError.unauthenticated }
        self.coreContext = context.coreContext
        self.identity = identity
        self.clientAddress = context.clientAddress
        self.caller = context.caller
    }
}
