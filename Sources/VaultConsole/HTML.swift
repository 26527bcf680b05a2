/// HTML written by the server, as Swift strings: every value that did not come from this module is
/// escaped through ``HTML/escape(_:)`` (or interpolated as ``HTML/Text``), so text a card holder,
/// merchant or operator typed is never markup.
public enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as character references: safe in element
    /// content and in quoted attribute values.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

/// A fragment of markup built by this module. Interpolating a `String` escapes it; interpolating
/// another `Markup` inserts it as is.
public struct Markup: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    public private(set) var html: String

    public init(stringLiteral value: String) { html = value }

    public init(stringInterpolation: Interpolation) { html = stringInterpolation.html }

    /// Markup from text already escaped or written by this module.
    init(trusted html: String) { self.html = html }

    public var description: String { html }

    /// Joins fragments.
    static func joined(_ parts: [Markup], separator: String = "") -> Markup {
        Markup(trusted: parts.map(\.html).joined(separator: separator))
    }

    public struct Interpolation: StringInterpolationProtocol {
        var html = ""

        public init(literalCapacity: Int, interpolationCount: Int) { html.reserveCapacity(literalCapacity * 2) }

        public mutating func appendLiteral(_ literal: String) { html += literal }

        /// Text: escaped.
        public mutating func appendInterpolation(_ text: String) { html += HTML.escape(text) }

        /// A number.
        public mutating func appendInterpolation(_ number: Int) { html += String(number) }

        /// Markup: inserted as is.
        public mutating func appendInterpolation(_ markup: Markup) { html += markup.html }

        /// Markup fragments, one after another.
        public mutating func appendInterpolation(_ parts: [Markup]) { html += parts.map(\.html).joined() }
    }
}
