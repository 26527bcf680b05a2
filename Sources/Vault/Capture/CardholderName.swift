/// Cardholder name handling for keyed entry and for the `SURNAME/GIVEN NAMES.TITLE` format
/// that magnetic stripes (ISO/IEC 7813 track 1) and EMV tag `5F20` use.
public enum CardholderName {
    /// Longest keyed holder name accepted, in characters.
    public static let maximumLength = 100

    /// Turns the card format into reading order: `DOE/JOHN M` → `JOHN M DOE`,
    /// `DOE/JOHN M.MR` → `MR JOHN M DOE`, `DOE/` → `DOE`.
    ///
    /// Surrounding and repeated spaces are collapsed. A name without `/` is only tidied.
    /// Returns `nil` when nothing is left (blank names such as `/` or spaces on gift cards).
    public static func normalized(fromCardFormat raw: String) -> String? {
        let parts = raw.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return tidy(raw) }
        let surname = tidy(String(parts[0]))
        let givenAndTitle = parts[1].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let given = givenAndTitle.first.flatMap { tidy(String($0)) }
        let title = givenAndTitle.count == 2 ? tidy(String(givenAndTitle[1])) : nil
        let words = [title, given, surname].compactMap { $0 }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// Validates a keyed or OCR holder name: trimmed and with runs of white space collapsed;
    /// `nil` or blank gives `nil`.
    /// - Throws: ``CardDataError`` on `field`: `invalid_format` for control characters,
    ///   `too_long` past ``maximumLength`` characters.
    public static func validatedKeyed(_ raw: String?, field: String = "card.holderName") throws(CardDataError) -> String? {
        guard let raw else { return nil }
        guard !raw.containsControlCharacters else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The cardholder name contains control characters.")
        }
        guard let name = tidy(raw) else { return nil }
        guard name.count <= maximumLength else {
            throw CardDataError(field: field, code: CardDataError.Code.tooLong,
                                message: "The cardholder name must be at most \(maximumLength) characters.")
        }
        return name
    }

    /// Trims, collapses white space to single spaces; `nil` when blank.
    static func tidy(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
