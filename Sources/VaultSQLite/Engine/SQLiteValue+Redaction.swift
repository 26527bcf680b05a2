extension SQLiteValue: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The storage class and size, never the contents (`TEXT(16 bytes)`): values may be card data,
    /// and descriptions end up in logs and test failure messages.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text(let text): "TEXT(\(text.utf8.count) bytes)"
        case .blob(let bytes): "BLOB(\(bytes.count) bytes)"
        }
    }

    /// The same redacted form as `description`.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and reflection-based printers show no contents either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
