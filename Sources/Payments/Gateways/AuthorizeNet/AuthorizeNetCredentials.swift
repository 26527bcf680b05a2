/// An Authorize.Net API login id and transaction key. Never printed, dumped or logged.
struct AuthorizeNetCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let apiLoginID: String
    let transactionKey: String

    var description: String { "AuthorizeNetCredentials(redacted)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
