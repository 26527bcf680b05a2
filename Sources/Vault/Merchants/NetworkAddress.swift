#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, and which kind of network it belongs to.
///
/// Used to decide where the vault may send requests (callback URLs, gateway endpoints): a
/// callback that reaches a loopback, private or link-local address lets whoever sets the URL
/// probe services on the vault's own host or network (SSRF).
public enum NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4, in host byte order.
    case v4(UInt32)
    /// IPv6, 16 bytes in network order.
    case v6([UInt8])

    /// What a destination address is, for the purpose of sending requests to it.
    public enum Scope: String, Sendable, Equatable {
        /// A globally routable unicast address.
        case global
        /// The host itself: `127.0.0.0/8`, `::1` (and IPv6 forms embedding a loopback IPv4 address).
        case loopback
        /// Private, link-local, shared (carrier-grade NAT), benchmarking or unique-local networks:
        /// `10/8`, `172.16/12`, `192.168/16`, `169.254/16`, `100.64/10`, `198.18/15`, `192.0.0/24`,
        /// `fc00::/7`, `fe80::/10`, `fec0::/10`, `2001::/23`, `64:ff9b:1::/48`.
        case local
        /// Never a valid destination: unspecified (`0.0.0.0/8`, `::`), multicast, broadcast,
        /// reserved (`240/4`) and documentation ranges (`192.0.2/24`, `198.51.100/24`,
        /// `203.0.113/24`, `2001:db8::/32`), discard-only (`100::/64`).
        case unusable
    }

    /// Parses an IP literal in its standard text form: a dotted quad as `inet_pton` reads it (four
    /// decimal parts, no leading zeros), or IPv6 text with or without brackets. Zone ids
    /// (`fe80::1%eth0`) and the legacy IPv4 forms (`127.1`, `0x7f000001`, `2130706433`,
    /// `0177.0.0.1`) are not parsed: see ``isLegacyNumericHost(_:)``.
    public init?(literal text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") {
            text = text.dropFirst().dropLast()
            guard let bytes = Self.presentation(String(text), family: AF_INET6) else { return nil }
            self = .v6(bytes)
            return
        }
        if let bytes = Self.presentation(String(text), family: AF_INET) {
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        } else if let bytes = Self.presentation(String(text), family: AF_INET6) {
            self = .v6(bytes)
        } else {
            return nil
        }
    }

    /// `true` when `host` reads as a number to a URL parser or the C resolver but is not a
    /// standard dotted quad: `127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`, `127.0.0.1.`,
    /// `1.2.3.256`. Such hosts are how loopback and private addresses are disguised; they are
    /// refused outright.
    ///
    /// The WHATWG URL rule: a host whose last label (a trailing dot aside) is all digits or
    /// `0x` + hex is an IPv4 address. `inet_aton` (what `getaddrinfo` falls back to) is asked too.
    public static func isLegacyNumericHost(_ host: String) -> Bool {
        if IPAddress.isIPv4(host) { return false }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        if let last = labels.last, !last.isEmpty {
            let lower = last.lowercased()
            if lower.utf8.allSatisfy(ASCII.isDigit) { return true }
            if lower.hasPrefix("0x"), lower.dropFirst(2).utf8.allSatisfy({ ASCII.isDigit($0) || (0x61...0x66).contains($0) }) {
                return true
            }
        }
        guard !host.utf8.contains(0), host.utf8.count < 256 else { return true }
        var address = in_addr()
        return host.withCString { inet_aton($0, &address) } != 0
    }

    /// The kind of network the address belongs to. IPv6 addresses that embed an IPv4 address
    /// (mapped `::ffff:0:0/96`, compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) take
    /// the scope of the IPv4 address, so `[::ffff:127.0.0.1]` is loopback.
    public var scope: Scope {
        switch self {
        case .v4(let address): Self.scope(ofIPv4: address)
        case .v6(let bytes): Self.scope(ofIPv6: bytes)
        }
    }

    /// The standard text form (`127.0.0.1`, `::1`), without brackets.
    public var description: String {
        switch self {
        case .v4(let address):
            return [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .v6(var bytes):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let written = bytes.withUnsafeMutableBytes { raw in
                inet_ntop(AF_INET6, raw.baseAddress, &text, socklen_t(text.count))
            }
            guard written != nil else { return "::" }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    private static let ipv4Ranges: [(prefix: UInt32, length: UInt32, scope: Scope)] = [
        (0x0000_0000, 8, .unusable),  // 0.0.0.0/8 "this network"
        (0x0A00_0000, 8, .local),  // 10.0.0.0/8
        (0x6440_0000, 10, .local),  // 100.64.0.0/10 shared address space
        (0x7F00_0000, 8, .loopback),  // 127.0.0.0/8
        (0xA9FE_0000, 16, .local),  // 169.254.0.0/16 link-local
        (0xAC10_0000, 12, .local),  // 172.16.0.0/12
        (0xC000_0000, 24, .local),  // 192.0.0.0/24 IETF protocol assignments
        (0xC000_0200, 24, .unusable),  // 192.0.2.0/24 TEST-NET-1
        (0xC058_6300, 24, .unusable),  // 192.88.99.0/24 6to4 relay anycast (deprecated)
        (0xC0A8_0000, 16, .local),  // 192.168.0.0/16
        (0xC612_0000, 15, .local),  // 198.18.0.0/15 benchmarking
        (0xC633_6400, 24, .unusable),  // 198.51.100.0/24 TEST-NET-2
        (0xCB00_7100, 24, .unusable),  // 203.0.113.0/24 TEST-NET-3
        (0xE000_0000, 4, .unusable),  // 224.0.0.0/4 multicast
        (0xF000_0000, 4, .unusable),  // 240.0.0.0/4 reserved, and the broadcast address
    ]

    static func scope(ofIPv4 address: UInt32) -> Scope {
        for range in ipv4Ranges {
            let mask: UInt32 = ~0 << (32 - range.length)
            if address & mask == range.prefix { return range.scope }
        }
        return .global
    }

    static func scope(ofIPv6 bytes: [UInt8]) -> Scope {
        guard bytes.count == 16 else { return .unusable }
        func embedded(at offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let prefix96 = bytes[0..<12]
        if bytes.allSatisfy({ $0 == 0 }) { return .unusable }  // ::
        if prefix96.allSatisfy({ $0 == 0 }) {
            // ::1 is loopback; other ::a.b.c.d are IPv4-compatible addresses (deprecated).
            return embedded(at: 12) == 1 ? .loopback : scope(ofIPv4: embedded(at: 12))
        }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return scope(ofIPv4: embedded(at: 12))  // ::ffff:a.b.c.d, IPv4-mapped
        }
        if bytes[0..<8].allSatisfy({ $0 == 0 }), bytes[8] == 0xFF, bytes[9] == 0xFF, bytes[10] == 0, bytes[11] == 0 {
            return scope(ofIPv4: embedded(at: 12))  // ::ffff:0:a.b.c.d, IPv4-translated
        }
        if Array(prefix96) == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return scope(ofIPv4: embedded(at: 12))  // 64:ff9b::/96 NAT64
        }
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4] == 0, bytes[5] == 0x01 {
            return .local  // 64:ff9b:1::/48 local-use NAT64
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 {
            return scope(ofIPv4: embedded(at: 2))  // 2002::/16 6to4
        }
        if bytes[0] == 0x01, bytes[1] == 0x00, bytes[2..<8].allSatisfy({ $0 == 0 }) { return .unusable }  // 100::/64 discard
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return .unusable }  // 2001:db8::/32
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] & 0xFE == 0 { return .local }  // 2001::/23 (Teredo, ORCHID, benchmarking)
        if bytes[0] & 0xFE == 0xFC { return .local }  // fc00::/7 unique local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .local }  // fe80::/10 link-local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return .local }  // fec0::/10 site-local (deprecated)
        if bytes[0] == 0xFF { return .unusable }  // ff00::/8 multicast
        return .global
    }

    private static func presentation(_ text: String, family: Int32) -> [UInt8]? {
        guard (2...IPAddress.maximumLength).contains(text.utf8.count), !text.utf8.contains(0) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = text.withCString { pointer in
            buffer.withUnsafeMutableBytes { inet_pton(family, pointer, $0.baseAddress) }
        }
        guard result == 1 else { return nil }
        return family == AF_INET ? Array(buffer.prefix(4)) : buffer
    }
}
