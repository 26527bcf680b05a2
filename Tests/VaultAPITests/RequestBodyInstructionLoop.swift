import Foundation
import Testing
import Vault
@testable import VaultAPI

/// A loop for counting the instructions of decoding a registration body, run under callgrind:
///
///     VAULT_BODY_DECODE_LOOP=new:2000 valgrind --tool=callgrind --callgrind-out-file=/tmp/new-2000.out \
///       .build/debug/vaultPackageTests.xctest --testing-library swift-testing --filter RequestBodyInstructionLoop
///
/// `new` decodes with the body path, `old` with its oracle (the path before bodies were parsed once),
/// `lookup` only finds the operation; run each at two sizes and take the difference, so start-up
/// cancels (the numbers are in docs/decisions/performance.md). Without the variable it runs once.
@Suite struct RequestBodyInstructionLoop {
    /// The load script's registration body.
    static let body = Array(
        #"{"merchantReference": "seed-1", "method": "keyed", "verify": false, "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Seed Card"}}"#
            .utf8)

    @Test func decodesTheLoadScriptsRegistrationBody() throws {
        let setting = ProcessInfo.processInfo.environment["VAULT_BODY_DECODE_LOOP"]?.split(separator: ":")
        let mode = setting?.first.map(String.init) ?? "new"
        let count = setting.flatMap { $0.count > 1 ? Int($0[1]) : nil } ?? 1
        var decoded = 0
        for _ in 0..<count {
            let operation = OpenAPIContract.served.operation(method: "POST", path: "/v1/secure-cards")
            switch mode {
            case "old":
                decoded += try OldJSONBodyPath.decode(SecureCardRegistrationRequest.self, body: Self.body, operation: operation)
                    .registration.merchantReference.utf8.count
            case "lookup":
                decoded += operation == nil ? 0 : 6
            default:
                decoded += try Self.body.withUnsafeBytes {
                    try JSONCoding.decode(SecureCardRegistrationRequest.self, body: $0, operation: operation)
                }.registration.merchantReference.utf8.count
            }
        }
        #expect(decoded == 6 * count)
    }
}
