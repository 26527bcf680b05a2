import Foundation

/// An absolute `http`/`https` URL the vault sends requests to (a gateway endpoint or a merchant's
/// callback URL), parsed strictly so that what is checked is what will be connected to.
///
/// Refused as unparseable: anything but `http`/`https`, spaces, control characters, backslashes,
/// non-ASCII text (international names must be written as punycode), more than one `@`, an empty
/// or out-of-range port, a host that is neither a name nor a standard IP literal, and any URL
/// whose host Foundation's parser (the one the HTTP client uses) reads differently.
public struct EndpointURL: Sendable, Equatable {
    /// The two schemes allowed.
    public enum Scheme: String, Sendable {
        /// Plain HTTP: only for loopback hosts.
        case http
        /// HTTP over TLS.
        case https
    }

    /// The scheme.
    public let scheme: Scheme
    /// The host as written (without brackets for IPv6).
    public let host: String
    /// The port, explicit or the scheme's default.
    public let port: Int
    /// The address when the host is an IP literal; nil for a name (resolved at connection time).
    public let address: NetworkAddress?

    /// Parses `text`.
    /// - Throws: ``EndpointURLError`` `invalid_url`, or `disguised_address` for a host that is
    ///   a number in a non-standard form (`127.1`, `0x7f000001`, `2130706433`).
    public init(parsing text: String) throws(EndpointURLError) {
        let bytes = text.utf8
        guard (1...2048).contains(bytes.count),
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x5C })
        else { throw .invalidURL }
        guard let schemeEnd = text.range(of: "://") else { throw .invalidURL }
        guard let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased()) else { throw .invalidURL }
        var rest = text[schemeEnd.upperBound...]
        if let cut = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        let userInfoParts = rest.split(separator: "@", omittingEmptySubsequences: false)
        guard userInfoParts.count <= 2, let authority = userInfoParts.last else { throw .invalidURL }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL }
                portText = after.dropFirst()
            }
            guard case .v6? = NetworkAddress(literal: "[" + host + "]") else { throw .invalidURL }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .invalidURL }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty else { throw .invalidURL }
        var port = scheme == .https ? 443 : 80
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy(ASCII.isDigit), let value = Int(portText),
                (1...65535).contains(value)
            else { throw .invalidURL }
            port = value
        }

        let address: NetworkAddress?
        if authority.hasPrefix("[") {
            address = NetworkAddress(literal: "[" + host + "]")
        } else if IPAddress.isIPv4(String(host)) {
            address = NetworkAddress(literal: String(host))
        } else if NetworkAddress.isLegacyNumericHost(String(host)) {
            throw .disguisedAddress
        } else {
            guard Self.isHostName(host) else { throw .invalidURL }
            address = nil
        }

        // The HTTP client parses the URL with Foundation: it must see the same scheme and host.
        guard let parsed = URL(string: text), parsed.scheme?.lowercased() == scheme.rawValue,
            let parsedHost = parsed.host, Self.unbracketed(parsedHost).lowercased() == host.lowercased()
        else { throw .invalidURL }

        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.address = address
    }

    /// `localhost` or a name under `.localhost` (RFC 6761: always the host itself).
    public var isLoopbackName: Bool {
        guard address == nil else { return false }
        let name = Self.withoutTrailingDot(host.lowercased())
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// The hosts plain `http` is allowed for, written plainly: a dotted quad in `127.0.0.0/8`,
    /// `[::1]`, or ``isLoopbackName``. An IPv6 form embedding `127.0.0.1` is loopback too, but
    /// not exempt: it is a disguise, not how a local fake is configured.
    public var isLoopbackHost: Bool {
        switch address {
        case .v4(let value)?: value >> 24 == 127
        case .v6(let bytes)?: bytes == [UInt8](repeating: 0, count: 15) + [1]
        case nil: isLoopbackName
        }
    }

    private static func isHostName(_ host: Substring) -> Bool {
        let name = withoutTrailingDot(String(host))
        guard (1...253).contains(name.utf8.count) else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ASCII.isDigit($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
        }
    }

    private static func withoutTrailingDot(_ name: String) -> String {
        name.hasSuffix(".") && name.count > 1 ? String(name.dropLast()) : name
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

/// Why a gateway or callback URL is refused. The message never repeats the URL (it may embed a
/// secret); it says which rule and how to comply.
public struct EndpointURLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `invalid_url`, `insecure_scheme`, `disguised_address`, `private_address` or `unusable_address`.
    public let code: String
    /// A sentence for the operator.
    public let message: String

    /// Not an absolute http(s) URL the vault can parse unambiguously.
    public static let invalidURL = EndpointURLError(
        code: "invalid_url", message: "must be an absolute https URL with a host name or a standard IP address (ASCII only)")
    /// `http` to a host that is not loopback.
    public static let insecureScheme = EndpointURLError(
        code: "insecure_scheme", message: "must use https; plain http is allowed only for loopback hosts (127.0.0.0/8, [::1], localhost)")
    /// A numeric host in a non-standard form.
    public static let disguisedAddress = EndpointURLError(
        code: "disguised_address",
        message: "the host is a number in a non-standard form (such as 127.1, 0x7f000001 or 2130706433); write IPv4 addresses as four decimal parts")
    /// A loopback, private or link-local destination without the operator's permission.
    public static let privateAddress = EndpointURLError(
        code: "private_address",
        message: "points at a loopback, private or link-local address; set webhooks.allowPrivateTargets: true in the configuration to allow such callback targets")
    /// An address nothing may be sent to (unspecified, multicast, broadcast, reserved, documentation).
    public static let unusableAddress = EndpointURLError(
        code: "unusable_address", message: "points at an unspecified, multicast, broadcast or reserved address")

    /// The message.
    public var description: String { message }
}

/// Where the vault may send requests: the rules for gateway endpoints and callback URLs.
public enum EndpointPolicy {
    /// Checks a gateway endpoint override: `https`, or `http` to a loopback host (a local fake); a
    /// standard host; not an unusable address. Private addresses are allowed (a gateway proxy on
    /// the operator's network is plausible, and only the operator sets gateway URLs).
    /// - Throws: ``EndpointURLError``.
    @discardableResult
    public static func gatewayEndpoint(_ text: String) throws(EndpointURLError) -> EndpointURL {
        let url = try EndpointURL(parsing: text)
        guard url.scheme == .https || url.isLoopbackHost else { throw .insecureScheme }
        if url.address?.scope == .unusable { throw .unusableAddress }
        return url
    }

    /// Checks a callback URL: `https`, or `http` to a loopback host; a standard host; and unless
    /// `allowPrivateTargets`, neither a loopback, private or link-local IP literal nor a loopback
    /// name. Other names are checked again at every delivery, on the addresses they resolve to
    /// (``permitsCallback(to:allowPrivateTargets:)``).
    /// - Throws: ``EndpointURLError``.
    @discardableResult
    public static func callbackEndpoint(_ text: String, allowPrivateTargets: Bool) throws(EndpointURLError) -> EndpointURL {
        let url = try EndpointURL(parsing: text)
        guard url.scheme == .https || url.isLoopbackHost else { throw .insecureScheme }
        if let address = url.address {
            guard permitsCallback(to: address, allowPrivateTargets: allowPrivateTargets) else {
                throw address.scope == .unusable ? .unusableAddress : .privateAddress
            }
        } else if url.isLoopbackName, !allowPrivateTargets {
            throw .privateAddress
        }
        return url
    }

    /// Whether a callback may be delivered to `address`: global addresses always; loopback and
    /// private ones only when the operator allows private targets; unusable ones never.
    public static func permitsCallback(to address: NetworkAddress, allowPrivateTargets: Bool) -> Bool {
        switch address.scope {
        case .global: true
        case .loopback, .local: allowPrivateTargets
        case .unusable: false
        }
    }
}
