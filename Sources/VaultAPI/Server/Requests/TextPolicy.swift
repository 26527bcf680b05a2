import Vault

/// The one rule every text a client sends is held to, in every JSON request body (each string
/// value and object key, at any depth) and every query parameter, before a handler or the domain
/// sees it:
///
/// - no control characters (U+0000-U+001F, U+007F-U+009F: NUL, ESC, CR, LF, TAB...): they would be
///   echoed to every portal, log viewer and CSV export, and PostgreSQL text cannot hold a NUL, so
///   both engines must refuse it alike, here;
/// - at most the `maxLength` the served OpenAPI document declares for the field, and
///   ``undeclaredMaxLength`` where it declares none, counted in Unicode code points (so combining
///   marks cannot hide length inside one visible character);
/// - a free-text query parameter (a string the document constrains with no `pattern`, `enum` or
///   `format`, such as `q`) holding a card number (``CardNumberShape``, the normaliser every
///   free-text check uses) is refused; body fields are checked for card numbers by the domain's
///   own validation of each field.
///
/// Each refusal is a 422 naming the field, and nothing is read or written. A body nested deeper
/// than ``maximumDepth`` is a 400 `too_deep` (no request type comes near it).
enum TextPolicy {
    /// The longest string taken where the document declares no `maxLength`.
    static let undeclaredMaxLength = 1024

    /// The deepest nesting of arrays and objects a body may have (no request type comes near it).
    static let maximumDepth = 32

    /// Whether `scalar` is a control character (Unicode general category Cc).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The refusal of `text` in `field`, or nil when the text is acceptable.
    /// - Parameters:
    ///   - field: the field's name for the error (`card.holderName`, `q`); nil when it does not look
    ///     like a field name (a key sent by the client is never echoed).
    ///   - maxLength: the declared limit; nil: ``undeclaredMaxLength``.
    ///   - refusesCardNumbers: whether a card number in it is refused here.
    static func violation(in text: some StringProtocol, field: String?, maxLength: Int?, refusesCardNumbers: Bool = false) -> APIError? {
        let limit = min(maxLength ?? undeclaredMaxLength, undeclaredMaxLength)
        var count = 0
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                return .invalid(
                    "\(field ?? "A text field") contains a control character (U+0000-U+001F or U+007F-U+009F); text fields take none.",
                    code: "control_character", param: field)
            }
            count += 1
        }
        if count > limit {
            return .invalid("\(field ?? "A text field") must be at most \(limit) characters.", code: "too_long", param: field)
        }
        if refusesCardNumbers, CardNumberShape.contains(text) {
            let name = field ?? "A text field"
            return .invalid(
                "\(name) looks like it contains a card number (digits separated by anything but letters count as one number); "
                    + "card numbers are accepted only as card data (card.number, track or emv).",
                code: CardNumberShape.errorCode, param: field)
        }
        return nil
    }
}

extension OpenAPIContract.Operation {
    /// The refusal of the first query parameter (in sorted order) that breaks ``TextPolicy``.
    func textViolation(inQuery parameters: some Sequence<(key: Substring, value: Substring)>) -> APIError? {
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            let field = OpenAPIContract.name([OpenAPIContract.PathElement.key(String(name))])
            let shape = textParameters[String(name)]
            let error: APIError?
            if case .text(let maxLength, let freeText) = shape {
                error = TextPolicy.violation(in: value, field: field, maxLength: maxLength, refusesCardNumbers: freeText)
            } else {
                error = TextPolicy.violation(in: value, field: field, maxLength: nil)
            }
            if let error { return error }
        }
        return nil
    }
}
