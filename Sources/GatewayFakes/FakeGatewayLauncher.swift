/// A running fake gateway, for the `fake-gateway` executable and scripts.
public struct RunningFakeGateway: Sendable {
    /// The catalogue name of the gateway it imitates.
    public let gateway: String
    /// The loopback port it listens on.
    public let port: Int
    /// The URL to configure a merchant with (`--gateway-url`).
    public let url: String
    /// The credentials the fake accepts (fixed test values, not secrets).
    public let credentials: [String: String]
    private let stopServer: @Sendable () async -> Void

    init(gateway: String, port: Int, url: String, credentials: [String: String], stop: @escaping @Sendable () async -> Void) {
        self.gateway = gateway
        self.port = port
        self.url = url
        self.credentials = credentials
        stopServer = stop
    }

    /// Stops the server.
    public func stop() async { await stopServer() }
}

/// Starts the loopback fake of a gateway by its catalogue name.
public enum FakeGatewayLauncher {
    /// The gateways that have a loopback fake.
    public static let gateways = ["authorizenet", "nmi", "bridgepay"]

    /// Why a fake cannot be started.
    public struct UnknownGateway: Error, CustomStringConvertible {
        /// The name asked for.
        public let name: String
        /// Names the accepted gateways.
        public var description: String {
            "no fake for gateway '\(name)'; one of: \(FakeGatewayLauncher.gateways.joined(separator: ", "))"
        }
    }

    /// Starts the fake of `gateway` on 127.0.0.1:`port` (0: an ephemeral port). `ledger`: a file
    /// the fake appends every charge to before answering (the BridgePay and Authorize.Net fakes;
    /// the NMI fake ignores it).
    public static func start(gateway: String, port: Int = 0, ledger: String? = nil) async throws -> RunningFakeGateway {
        switch gateway {
        case "nmi":
            let fake = try await FakeNMIServer.start(port: port)
            return RunningFakeGateway(gateway: gateway, port: fake.core.port, url: fake.baseURL,
                                      credentials: ["security_key": FakeNMIServer.securityKey], stop: { await fake.stop() })
        case "authorizenet":
            let fake = try await FakeAuthorizeNetServer.start(port: port, ledger: ledger)
            return RunningFakeGateway(gateway: gateway, port: fake.core.port, url: fake.url,
                                      credentials: ["name": FakeAuthorizeNetServer.apiLoginID,
                                                    "transactionKey": FakeAuthorizeNetServer.transactionKey],
                                      stop: { await fake.stop() })
        case "bridgepay":
            let fake = try await FakeBridgePayServer.start(port: port, ledger: ledger)
            return RunningFakeGateway(gateway: gateway, port: fake.core.port, url: fake.endpoint,
                                      credentials: FakeBridgePayServer.credentials, stop: { await fake.stop() })
        default:
            throw UnknownGateway(name: gateway)
        }
    }
}
