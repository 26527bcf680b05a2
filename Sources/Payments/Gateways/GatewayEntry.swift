public import AsyncHTTPClient
public import Logging

/// One gateway as the catalogue describes it: its name, credentials, endpoint defaults and
/// rules, local pre-checks and how to build its adapter.
public struct GatewayEntry: Sendable {
    /// The configured name (lower case), e.g. `nmi`.
    public let name: String
    /// Other spellings accepted in configuration (lower case), e.g. `authorize.net`.
    public let aliases: Set<String>
    /// The credential names, all required, in the order help texts list them.
    public let credentialNames: [String]
    /// The endpoint used without an override; `nil` for an in-process gateway.
    public let defaultURL: String?
    /// How an endpoint override becomes the URL the adapter calls.
    public let urlRule: GatewayURLRule
    /// Checks made locally before anything is sent (filled by the per-gateway rules).
    public let preChecks: GatewayPreChecks
    /// Builds the adapter from checked credentials and the resolved endpoint.
    public let makeAdapter: @Sendable (GatewayAdapterContext) -> any GatewayAdapter

    /// Creates an entry.
    public init(name: String, aliases: Set<String> = [], credentialNames: [String], defaultURL: String?,
                urlRule: GatewayURLRule = .asGiven, preChecks: GatewayPreChecks = GatewayPreChecks(),
                makeAdapter: @escaping @Sendable (GatewayAdapterContext) -> any GatewayAdapter) {
        self.name = name
        self.aliases = aliases
        self.credentialNames = credentialNames
        self.defaultURL = defaultURL
        self.urlRule = urlRule
        self.preChecks = preChecks
        self.makeAdapter = makeAdapter
    }
}

/// How an endpoint override is turned into the URL an adapter calls. Every override must be an
/// `https` URL (or `http` to a loopback host) first (``GatewayURL/isValid(_:)``).
public enum GatewayURLRule: Sendable, Equatable {
    /// Used as given (a base URL the adapter appends its own paths to).
    case asGiven
    /// An override without a path gets this path (e.g. a fake's `http://127.0.0.1:8080`).
    case defaultPath(String)

    /// The URL to call for a valid override.
    public func apply(_ url: String) -> String {
        switch self {
        case .asGiven: url
        case let .defaultPath(path): GatewayURL.withDefaultPath(url, path)
        }
    }
}

/// What an entry's factory receives: credentials already checked to be present and non-empty,
/// and the endpoint resolved from the override or the default.
public struct GatewayAdapterContext: Sendable {
    /// Credential values by name (secrets: never logged).
    public let credentials: [String: String]
    /// The URL to call (``GatewayEntry/defaultURL`` or the override after ``GatewayURLRule``);
    /// empty for an in-process gateway.
    public let endpoint: String
    /// The shared client for gateway calls.
    public let httpClient: HTTPClient
    /// How long one exchange may take.
    public let timeout: Duration
    /// The logger, with the gateway name in its metadata.
    public let logger: Logger
    /// The registry's one sandbox.
    public let sandbox: SandboxGateway

    /// The value of a credential the catalogue lists (checked present before the factory runs).
    public func credential(_ name: String) -> String { credentials[name] ?? "" }
}
