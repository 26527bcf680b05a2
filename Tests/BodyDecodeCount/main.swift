import Vault
@testable import VaultAPI

// Decodes the load script's registration body COUNT times, for counting instructions under
// callgrind (the test bundle is too large for valgrind):
//
//     swift build --product body-decode-count
//     valgrind --tool=callgrind --callgrind-out-file=/tmp/new-2000.out .build/debug/body-decode-count new 2000
//
// `new` decodes with the server's body path, `old` with its test oracle (the path before bodies were
// parsed once: duplicate scan, JSONSerialization, JSONDecoder), `lookup` only finds the operation.
// Run each mode at two counts and take the difference, so start-up cancels; the numbers are in
// docs/decisions/performance.md. Debug only, like the tests: it imports VaultAPI `@testable`.
let body = Array(
    #"{"merchantReference": "seed-1", "method": "keyed", "verify": false, "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Seed Card"}}"#
        .utf8)
let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "new"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
var decoded = 0
for _ in 0..<count {
    let operation = OpenAPIContract.served.operation(method: "POST", path: "/v1/secure-cards")
    switch mode {
    case "old":
        decoded += try OldJSONBodyPath.decode(SecureCardRegistrationRequest.self, body: body, operation: operation).registration.merchantReference.utf8.count
    case "lookup":
        decoded += operation == nil ? 0 : 6
    default:
        decoded += try body.withUnsafeBytes {
            try JSONCoding.decode(SecureCardRegistrationRequest.self, body: $0, operation: operation)
        }.registration.merchantReference.utf8.count
    }
}
guard decoded == 6 * count else { fatalError("a decode went wrong") }
