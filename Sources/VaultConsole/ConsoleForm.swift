import Foundation

/// A form a console page posted (`application/x-www-form-urlencoded`), read strictly: a body over
/// the limit, another media type, a malformed pair, a field given twice or a control character is
/// refused before anything acts on it.
struct ConsoleForm {
    /// Bytes a console form may have.
    static let maxBytes = 16 * 1024

    private let fields: [String: String]

    /// The form in `body`, or nil when it is not one as described above.
    init?(contentType: String?, body: String) {
        guard let contentType, contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return nil }
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2,
                  let name = Self.decode(parts[0]), let value = Self.decode(parts[1]),
                  fields[name] == nil,
                  !(name + value).unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return nil }
            fields[name] = value
        }
        self.fields = fields
    }

    subscript(_ name: String) -> String? { fields[name] }

    /// The names of the fields sent (a set of checkboxes, each named for what it ticks).
    var names: [String] { Array(fields.keys) }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
