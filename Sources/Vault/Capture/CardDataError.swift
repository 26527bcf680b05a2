/// A validation failure that names the request field and a machine-readable code.
///
/// The API layer turns it into a 422 whose `param` is ``field`` and whose `code` is ``code``.
/// The ``message`` is written for people and never quotes the input: it must be safe to log
/// even when the input was a card number, a CVV, or raw track or EMV data.
public struct CardDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JSON path of the offending request field as the API sees it, e.g. `card.number`,
    /// `track`, `emv`, `customer.email`, `customFields[0].name`, `merchantReference`.
    public let field: String
    /// A stable machine code, e.g. `luhn_check_failed`, `invalid_expiry`, `track_read_error`.
    public let code: String
    /// A human sentence explaining the failure; never contains PAN, CVV, track or EMV data.
    public let message: String

    /// Creates an error; callers must not interpolate card data into `message`.
    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// `field: message (code)`; as safe to log as ``message``.
    public var description: String {
        "\(field): \(message) (\(code))"
    }

    /// The same failure attributed to another request field, e.g. a PAN error found inside track data.
    func reattributed(to field: String) -> CardDataError {
        CardDataError(field: field, code: code, message: message)
    }
}

extension CardDataError {
    /// Machine codes used by the capture and validation code, one place to spell them.
    public enum Code {
        /// The field is absent or empty.
        public static let missing = "missing"
        /// The card number has characters other than digits, spaces and dashes.
        public static let invalidNumber = "invalid_number"
        /// The card number fails the Luhn (mod 10) check.
        public static let luhnCheckFailed = "luhn_check_failed"
        /// A length is outside what is allowed (PAN length, for instance).
        public static let invalidLength = "invalid_length"
        /// No supported card brand owns the number's IIN, or `cardType` names no known brand.
        public static let unknownBrand = "unknown_brand"
        /// `cardType` names a brand other than the one detected from the number.
        public static let brandMismatch = "brand_mismatch"
        /// The expiry is not a real month.
        public static let invalidExpiry = "invalid_expiry"
        /// The card expired before the current month.
        public static let expired = "expired"
        /// A CVV was sent with a capture method that must not carry one.
        public static let cvvNotAllowed = "cvv_not_allowed"
        /// The CVV is not the brand's number of digits.
        public static let invalidCVV = "invalid_cvv"
        /// The reader reported a read error on every track it sent.
        public static let trackReadError = "track_read_error"
        /// The magnetic-stripe data is malformed.
        public static let invalidTrack = "invalid_track"
        /// The EMV TLV data is malformed or lacks the card data.
        public static let invalidEMV = "invalid_emv"
        /// A text value is longer than allowed.
        public static let tooLong = "too_long"
        /// A value has the wrong shape (e-mail, phone, IP address, characters used).
        public static let invalidFormat = "invalid_format"
        /// A custom field name is not among the merchant's definitions.
        public static let unknownField = "unknown_field"
        /// A name appears twice where names must be unique.
        public static let duplicate = "duplicate"
        /// A required custom field is missing.
        public static let required = "required"
        /// A number is outside its allowed range.
        public static let outOfRange = "out_of_range"
        /// The currency code is not a known ISO 4217 currency.
        public static let unknownCurrency = "unknown_currency"
        /// More items than allowed.
        public static let tooMany = "too_many"
    }
}
