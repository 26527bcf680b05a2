import Vault

/// Endpoint URL checks and safe printing.
enum GatewayURL {
    /// Whether `url` is a gateway endpoint the vault may call: `https`, or `http` to a loopback
    /// host (a local fake), with a standard host (``EndpointPolicy/gatewayEndpoint(_:)``).
    static func isValid(_ url: String) -> Bool {
        (try? EndpointPolicy.gatewayEndpoint(url)) != nil
    }

    /// The URL with its path replaced by `path` when it has none (or only `/`); otherwise as is.
    static func withDefaultPath(_ url: String, _ path: String) -> String {
        guard let parts = split(url), parts.path.isEmpty || parts.path == "/" else { return url }
        return parts.scheme + "://" + parts.authority + path
    }

    /// The URL without user info, query or fragment, for logs and descriptions (an override
    /// could embed a secret).
    static func redacted(_ url: String) -> String {
        guard let parts = split(url) else { return "<invalid url>" }
        return parts.scheme + "://" + parts.host + parts.path
    }

    /// `scheme://authority/path?query`, cut into parts; `nil` unless the scheme is http(s).
    static func split(_ url: String) -> (scheme: String, authority: String, host: String, path: String)? {
        let trimmed = url.trimmingASCIISpaces()
        guard let schemeEnd = trimmed.firstRange(of: "://") else { return nil }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = trimmed[schemeEnd.upperBound...]
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        let path = String(rest[authorityEnd...])
        let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
        return (scheme, authority, hostAndPort, path)
    }
}
