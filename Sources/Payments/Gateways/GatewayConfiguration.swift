/// Which gateway a merchant uses, where it is and how to sign in, as stored in configuration.
///
/// Credentials are secrets: `description`, `debugDescription` and the reflection mirror name
/// the credential keys only, never their values.
public struct GatewayConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The gateway name, one of ``GatewayCatalogue/names`` or an alias (case-insensitive).
    public var name: String
    /// An endpoint override, e.g. a gateway's test host or a local fake. `nil` uses the
    /// gateway's production endpoint.
    public var url: String?
    /// Gateway credentials by key (the names ``GatewayEntry/credentialNames`` lists).
    public var credentials: [String: String]
    /// How long one HTTP exchange may take before it is abandoned (and, for a charge, becomes
    /// in doubt).
    public var timeout: Duration

    /// The default timeout of one gateway exchange.
    public static let defaultTimeout: Duration = .seconds(30)

    /// Creates a configuration.
    public init(name: String, url: String? = nil, credentials: [String: String] = [:],
                timeout: Duration = GatewayConfiguration.defaultTimeout) {
        self.name = name
        self.url = url
        self.credentials = credentials
        self.timeout = timeout
    }

    /// The name, whether a URL override is set, and the credential keys; never credential values
    /// (nor the URL, which may embed a secret).
    public var description: String {
        "GatewayConfiguration(name: \(name), url: \(url == nil ? "default" : "override"), credentials: ["
            + credentials.keys.sorted().joined(separator: ", ") + "], timeout: \(timeout))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without credential values, so `dump` cannot leak them.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "url": url == nil ? "default" : "override",
                                "credentialKeys": credentials.keys.sorted(), "timeout": timeout],
               displayStyle: .struct)
    }
}

/// Why a merchant's gateway configuration cannot be used. Never contains a credential value.
public enum GatewayConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The gateway name is not in ``GatewayCatalogue``.
    case unknownGateway(String)
    /// A required credential is absent or empty; names the key, never a value.
    case missingCredential(gateway: String, key: String)
    /// The endpoint override is not an `https` URL (or `http` to a loopback host) with a standard host.
    case invalidURL(gateway: String)

    /// A sentence for operators, naming the gateway and credential key only.
    public var description: String {
        switch self {
        case let .unknownGateway(name):
            "Unknown gateway '\(GatewayConfigurationError.printable(name))'; expected one of: "
                + GatewayCatalogue.names.joined(separator: ", ") + "."
        case let .missingCredential(gateway, key):
            "The \(gateway) gateway needs the credential '\(key)'."
        case let .invalidURL(gateway):
            "The \(gateway) gateway URL override is not an absolute https URL (plain http is allowed only for loopback hosts)."
        }
    }

    /// At most 32 printable ASCII characters of an unknown name (it came from configuration).
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }
            .prefix(32)))
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces, tabs and newlines.
    func trimmingASCIISpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
