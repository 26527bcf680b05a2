import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses connections for as long as this value lives: a TCP socket bound
/// to 127.0.0.1 but never listening. Unlike a port whose server was stopped, nothing else can
/// start listening on it while the test runs: what a gateway or a webhook receiver that is down
/// looks like to the vault.
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}
