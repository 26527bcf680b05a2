#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// IP address text validation through the C library's `inet_pton`.
public enum IPAddress {
    /// Longest IPv6 text form (with an embedded IPv4 address).
    static let maximumLength = 45

    /// `true` for an IPv4 dotted quad (`192.0.2.1`) or an IPv6 address (`2001:db8::1`,
    /// `::ffff:192.0.2.1`) as `inet_pton` parses them; zone ids (`%eth0`) are not accepted.
    public static func isValid(_ text: String) -> Bool {
        isIPv4(text) || isIPv6(text)
    }

    /// `true` for an IPv4 dotted quad.
    public static func isIPv4(_ text: String) -> Bool {
        parses(text, family: AF_INET)
    }

    /// `true` for an IPv6 address in text form.
    public static func isIPv6(_ text: String) -> Bool {
        parses(text, family: AF_INET6)
    }

    private static func parses(_ text: String, family: Int32) -> Bool {
        // A NUL would end the C string early and let trailing garbage pass.
        guard (2...maximumLength).contains(text.utf8.count), !text.utf8.contains(0) else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = text.withCString { pointer in
            buffer.withUnsafeMutableBytes { inet_pton(family, pointer, $0.baseAddress) }
        }
        return result == 1
    }
}
