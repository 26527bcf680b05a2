public import AsyncHTTPClient
public import Logging

/// Builds the adapter a merchant's configuration names.
///
/// Shares one `HTTPClient` between all HTTP adapters and one ``SandboxGateway`` between all
/// sandbox merchants, so the sandbox's ledger of idempotency keys and transactions persists
/// across calls (and, when the sandbox keeps it in the vault's database, across processes).
public final class GatewayRegistry: Sendable {
    /// The HTTP client the real adapters use.
    public let httpClient: HTTPClient
    /// The one sandbox instance.
    public let sandbox: SandboxGateway
    /// How long one exchange with a gateway may take (`runner.gatewayTimeoutSeconds`): the
    /// timeout of every adapter ``MerchantGateways`` builds.
    public let timeout: Duration
    /// Told of every call of every adapter this registry builds (metrics), when set.
    public let observer: (any GatewayCallObserver)?
    private let logger: Logger

    /// The process-wide client for gateway calls. `HTTPClient.shared` keeps at most 8 connections
    /// per host, which capped the charge runner at 8 calls in flight whatever its concurrency; this
    /// one allows as many connections to a gateway host as the runner's largest concurrency (1,024),
    /// so the runner's own bound is the one that holds. It never follows redirects
    /// (``clientConfiguration()``). Like `HTTPClient.shared` it lives as long as the process and is
    /// never shut down.
    public static let sharedClient: HTTPClient = {
        var configuration = clientConfiguration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1024
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The configuration every HTTP client that talks to a gateway must start from: redirects are
    /// never followed. AsyncHTTPClient follows them by default and re-sends a 307/308's body, so a
    /// gateway endpoint (or whoever controls it) answering 307 would receive the card number, the
    /// CVV and the gateway credentials at the address of its choice. A redirect is answered as a
    /// gateway error instead (``GatewayHTTP/unexpectedStatus(_:)``).
    ///
    /// A connection the gateway refuses fails the request at once: AsyncHTTPClient would otherwise
    /// keep retrying to connect until the request's deadline, so with the gateway's port closed
    /// every charge waited the whole timeout for an answer that was known at the first refusal.
    /// Nothing was sent then (`gateway_unreachable`): the charge is left for a later attempt.
    public static func clientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Creates a registry.
    /// - Parameters:
    ///   - httpClient: The client for HTTP gateways; ``sharedClient`` by default.
    ///   - sandbox: The sandbox every `sandbox` merchant uses.
    ///   - logger: The logger adapters log to (never card data or credentials).
    ///   - timeout: How long one gateway exchange may take (30 s by default).
    ///   - observer: Told of every call of the adapters built here (the server's gateway metrics).
    public init(httpClient: HTTPClient = GatewayRegistry.sharedClient, sandbox: SandboxGateway = SandboxGateway(),
                logger: Logger = Logger(label: "vault.gateways"), timeout: Duration = GatewayConfiguration.defaultTimeout,
                observer: (any GatewayCallObserver)? = nil) {
        self.httpClient = httpClient
        self.sandbox = sandbox
        self.logger = logger
        self.timeout = timeout
        self.observer = observer
    }

    /// The adapter for a configuration, built by its ``GatewayCatalogue`` entry.
    /// - Throws: ``GatewayConfigurationError`` for an unknown gateway name, a missing or empty
    ///   credential (named by key), or an endpoint override that is not an http(s) URL.
    public func adapter(for configuration: GatewayConfiguration) throws(GatewayConfigurationError) -> any GatewayAdapter {
        guard let entry = GatewayCatalogue.entry(configuredName: configuration.name) else {
            throw .unknownGateway(configuration.name)
        }
        var logger = logger
        logger[metadataKey: "gateway"] = "\(entry.name)"
        var credentials: [String: String] = [:]
        for key in entry.credentialNames {
            guard let value = configuration.credentials[key], !value.trimmingASCIISpaces().isEmpty else {
                throw .missingCredential(gateway: entry.name, key: key)
            }
            credentials[key] = value
        }
        var endpoint = entry.defaultURL ?? ""
        if entry.defaultURL != nil, let url = configuration.url?.trimmingASCIISpaces(), !url.isEmpty {
            guard GatewayURL.isValid(url) else { throw .invalidURL(gateway: entry.name) }
            endpoint = entry.urlRule.apply(url)
        }
        let adapter = entry.makeAdapter(GatewayAdapterContext(credentials: credentials, endpoint: endpoint, httpClient: httpClient,
                                                              timeout: configuration.timeout, logger: logger, sandbox: sandbox))
        guard let observer else { return adapter }
        return ObservedGateway(base: adapter, observer: observer)
    }
}
