import Foundation

/// A request body whose fields are a closed set: a key outside `fieldNames` is a 422 `unknown_field`
/// instead of being ignored (the document says `additionalProperties: false` for it).
///
/// For bodies where a misspelt field would silently change what happens: `{"dryrun": true}` must
/// not start a real charge run. `JSONCoding.decode` applies the check to every conforming type.
protocol ClosedRequestBody: Decodable {
    /// The JSON keys the body may carry.
    static var fieldNames: Set<String> { get }
}

extension ClosedRequestBody {
    /// The 422 for the first key (in sorted order) of `object` outside `fieldNames`, if any.
    static func unknownFieldError(in object: [String: Any]) -> APIError? {
        guard let key = object.keys.sorted().first(where: { !fieldNames.contains($0) }) else { return nil }
        let allowed = fieldNames.sorted().joined(separator: ", ")
        // Names the key only when it looks like a field name, so arbitrary client text (possibly
        // card data sent in the wrong place) never reaches a message.
        let looksLikeName = (1...64).contains(key.utf8.count)
            && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
            && key.unicodeScalars.filter { $0.properties.numericType != nil }.count < 6
        return looksLikeName
            ? .invalid("Unknown field '\(key)'; this request takes only \(allowed).", code: "unknown_field", param: key)
            : .invalid("The body has an unknown field; this request takes only \(allowed).", code: "unknown_field", param: nil)
    }
}
