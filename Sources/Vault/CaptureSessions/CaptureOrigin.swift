/// A web origin allowed to frame the hosted card field: `https://host[:port]`, or `http://` for a
/// loopback host (development). Nothing else (no path, query, user, wildcard or `null`), in lower
/// case, so the value can go as it is into a `Content-Security-Policy` header and an HTML attribute,
/// and compare equal to a browser's `MessageEvent.origin`.
public struct CaptureOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The origin as a browser serialises it.
    public let value: String

    /// Checks `text` as an origin.
    /// - Throws: `CardDataError` on `allowedOrigin` (422).
    public init(validating text: String) throws(CardDataError) {
        let refused = CardDataError(
            field: "allowedOrigin", code: "invalid_origin",
            message: "allowedOrigin must be an origin such as https://shop.example (https, or http for a loopback host; no path).")
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw refused
        }
        let authority = Substring(lowered.dropFirst(scheme.count + 3))
        guard !authority.isEmpty, authority.utf8.count <= 253 + 6 else { throw refused }
        let (host, port) = try Self.split(authority, refused: refused)
        guard Self.isHostName(host) || host == "[::1]" else { throw refused }
        if let port {
            guard let number = Int(port), (1...65535).contains(number), String(number) == port else { throw refused }
            // A browser leaves the scheme's default port out of the origin.
            if (scheme == "https" && number == 443) || (scheme == "http" && number == 80) { throw refused }
        }
        if scheme == "http", !Self.isLoopback(host) { throw refused }
        value = lowered
    }

    public var description: String { value }

    private static func split(_ authority: Substring, refused: CardDataError) throws(CardDataError) -> (host: String, port: String?) {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refused }
            let host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":") else { throw refused }
            return (host, String(rest.dropFirst()))
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw refused }
        return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
    }

    /// Letters, digits, hyphens and dots, labels of 1-63 characters, not starting or ending with a hyphen.
    private static func isHostName(_ host: String) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty, host.utf8.count <= 253 else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isIPv4Loopback = octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        return host == "localhost" || host == "[::1]" || isIPv4Loopback
    }
}
