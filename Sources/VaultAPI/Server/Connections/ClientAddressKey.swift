import Vault

/// The key a client address is counted under, by the connection cap per address and the
/// failed-authentication limiter alike: an IPv4 address as is (also when a dual-stack listener
/// reports it as `::ffff:a.b.c.d`, or every IPv4 client would share one /64), an IPv6 address by
/// its /64 prefix, the block one subscriber usually holds (one client could otherwise take a fresh
/// address for every connection).
enum ClientAddressKey {
    /// The counting key of `address` (an IP address as text; anything else is its own key).
    static func key(for address: String) -> String {
        guard case .v6(let bytes)? = NetworkAddress(literal: address) else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return NetworkAddress.v4(bytes[12...].reduce(0) { $0 << 8 | UInt32($1) }).description
        }
        return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ".") + "/64"
    }
}
