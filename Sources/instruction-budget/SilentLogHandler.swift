import Logging

/// A log handler that keeps metadata and writes nothing, at the server's default level (`info`).
///
/// The metadata is kept because the server reads it back (Hummingbird's request id lives in the
/// request logger's metadata, and the error envelope copies it into the `X-Request-Id` header). The
/// level is the server's, so building the lines it would log is counted; writing them is not, and
/// the workload prints nothing.
struct SilentLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {}
}
