import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import Payments
import Testing
import Vault

/// Records an issue when bytes sent differ from a fixture, showing both with digits masked.
func expectSameRequest(_ actual: [UInt8], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != Array(expected.utf8) else { return }
    let sent = GatewayFixtures.redacted(String(decoding: actual, as: UTF8.self))
    Issue.record("request differs from the fixture:\nsent:     \(sent)\nexpected: \(GatewayFixtures.redacted(expected))",
                 sourceLocation: sourceLocation)
}

/// Records an issue when `haystack` contains `needle`, without printing either.
func expectAbsent(_ needle: String, in haystack: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    if haystack.contains(needle) {
        Issue.record("\(what) contains a secret or card data", sourceLocation: sourceLocation)
    }
}

/// A loopback port that refuses connections for as long as this value lives: a TCP socket bound
/// to 127.0.0.1 but never listening. Unlike a port whose server was stopped, nothing else can
/// start listening on it while the test runs.
final class RefusingPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() {
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
    var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}
