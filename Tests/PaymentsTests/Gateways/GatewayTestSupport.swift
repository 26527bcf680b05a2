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

