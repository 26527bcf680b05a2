/// A BridgePay merchant's BridgeComm sign-in: `User`/`Password` in the request header and the
/// merchant and merchant-account codes in the message. Never printed, dumped or logged.
struct BridgePayCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let username: String
    let password: String
    let merchantCode: String
    let merchantAccountCode: String

    var description: String { "BridgePayCredentials(redacted)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
