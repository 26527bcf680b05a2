import Foundation
public import Logging
import Synchronization
import Vault

/// Writes one JSON object per log line to standard error: time, level, label, message and metadata.
///
/// Values are written as given: callers log references (`secureCardReference`, key ids,
/// request ids), never card data or secrets.
public struct JSONLogHandler: LogHandler {
    /// Extra fields on every line from this logger.
    public var metadata: Logger.Metadata = [:]
    /// Lowest level written.
    public var logLevel: Logger.Level
    private let label: String

    /// A handler for `label` at `level`.
    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        self.logLevel = level
    }

    /// Per-key metadata access.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Queues one line for `LogOutput` (whole lines only, so lines of concurrent requests never
    /// interleave; warnings and errors are written before this returns).
    ///
    /// The line is canonical JSON (sorted keys) written by `CanonicalJSON`: with
    /// `JSONSerialization` the access log alone took a fifth of the server's CPU under load.
    public func log(event: LogEvent) {
        var line = lineBytes(for: event, at: Date())
        line.append(0x0A)
        LogOutput.standardError.write(line, urgent: event.level >= .warning)
    }

    /// The line as text (without its newline).
    func line(for event: LogEvent, at time: Date) -> String {
        String(decoding: lineBytes(for: event, at: time), as: UTF8.self)
    }

    /// The line's bytes, written once (no round trip through a `String` on every request).
    ///
    /// The fields are gathered in one array and sorted there, not merged into dictionaries first:
    /// every request writes an access line, and hashing its dozen keys twice cost more than the
    /// writing.
    func lineBytes(for event: LogEvent, at time: Date) -> [UInt8] {
        let extra = event.metadata ?? [:]
        var fields: [(key: String, value: Logger.Metadata.Value)] = []
        fields.reserveCapacity(4 + metadata.count + extra.count)
        fields.append(("time", .string(Timestamp.string(time))))
        fields.append(("level", .string(event.level.rawValue)))
        fields.append(("logger", .string(label)))
        fields.append(("message", .string(event.message.description)))
        for (key, value) in extra where !Self.isFixed(key) {
            fields.append((key, value))
        }
        for (key, value) in metadata where !Self.isFixed(key) && extra[key] == nil {
            fields.append((key, value))
        }
        fields.sort { CanonicalJSON.precedes($0.key, $1.key) }
        var output: [UInt8] = []
        output.reserveCapacity(256)
        output.append(UInt8(ascii: "{"))
        for (index, field) in fields.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            CanonicalJSON.append(string: field.key, to: &output)
            output.append(UInt8(ascii: ":"))
            switch field.value {
            case .string(let text): CanonicalJSON.append(string: text, to: &output)
            case .stringConvertible(let convertible): CanonicalJSON.append(string: convertible.description, to: &output)
            case .array, .dictionary: CanonicalJSON.append(Self.json(field.value), to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Whether `key` is one of the fields every line has, which metadata cannot overwrite.
    private static func isFixed(_ key: String) -> Bool {
        switch key {
        case "time", "level", "logger", "message": true
        default: false
        }
    }

    private static func json(_ value: Logger.Metadata.Value) -> WebhookValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(values.mapValues(json))
        }
    }
}


/// Installs the process-wide log handler chosen by the configuration, once.
public enum VaultLogging {
    private static let bootstrapped = BootstrapOnce()

    /// Bootstraps swift-log with JSON or text output at `level`; later calls are ignored.
    public static func bootstrap(_ configuration: VaultConfiguration.Logging) {
        bootstrapped.run {
            let level = configuration.level
            if configuration.format == "text" {
                LoggingSystem.bootstrap { label in
                    var handler = StreamLogHandler.standardError(label: label)
                    handler.logLevel = level
                    return handler
                }
            } else {
                LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
            }
        }
    }
}

/// Runs a closure at most once per process.
final class BootstrapOnce: Sendable {
    private let done = Mutex(false)

    func run(_ body: () -> Void) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        if first { body() }
    }
}

