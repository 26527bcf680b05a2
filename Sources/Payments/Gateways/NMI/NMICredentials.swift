/// An NMI security key. Never printed, dumped or logged.
struct NMICredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let securityKey: String

    var description: String { "NMICredentials(redacted)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
