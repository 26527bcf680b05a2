/// A configuration problem, naming the key (`server.port`) or variable (`VAULT_PORT`) at fault.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The dotted key or environment variable.
    public var key: String
    /// What is wrong with it.
    public var message: String

    /// Creates an error.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "configuration error at \(key): \(message)" }
}
