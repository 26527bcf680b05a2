import NIOPosix
public import Vault

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into the addresses a connection could go to. The webhook transport asks it
/// once per delivery, checks every address, and connects to one it checked (never resolving the
/// name again), so a name that changes its answer between check and connect (DNS rebinding)
/// cannot steer a delivery to a private address.
public protocol HostResolver: Sendable {
    /// Every address `host` resolves to, in the resolver's order; empty or thrown when unknown.
    func addresses(of host: String) async throws -> [NetworkAddress]
}

/// The C library's resolver (`getaddrinfo`, so `/etc/hosts` and DNS alike), run on NIO's
/// blocking-work thread pool.
public struct SystemHostResolver: HostResolver {
    /// A resolver.
    public init() {}

    /// A host name's addresses from `getaddrinfo`.
    public func addresses(of host: String) async throws -> [NetworkAddress] {
        try await NIOThreadPool.singleton.runIfActive { try Self.lookUp(host) }
    }

    /// The name did not resolve.
    struct ResolutionFailed: Error {}

    static func lookUp(_ host: String) throws -> [NetworkAddress] {
        guard !host.utf8.contains(0) else { throw ResolutionFailed() }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { throw ResolutionFailed() }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr, let address = address(socketAddress),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address; nil for other families.
    static func address(_ socketAddress: UnsafePointer<sockaddr>) -> NetworkAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let value = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            return .v4(UInt32(bigEndian: value))
        case AF_INET6:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return .v6(withUnsafeBytes(of: &address) { Array($0) })
        default:
            return nil
        }
    }
}
