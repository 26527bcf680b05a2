/// How the card data reached us (`entryMode` in the API).
public enum EntryMode: String, Codable, Sendable, CaseIterable {
    /// Typed in by a person (with an optional CVV).
    case keyed
    /// Read from a picture of the card by optical character recognition (never a CVV).
    case ocr
    /// Swiped through a magnetic-stripe reader.
    case track
    /// Read from the chip (EMV BER-TLV data).
    case emv
}

/// Card data as captured by any method, validated.
///
/// Expiry-not-in-the-past is not checked here (capture has no clock): call
/// ``CardExpiry/isExpired(currentYear:currentMonth:)`` with today's date in the merchant's time zone.
public struct CapturedCard: Sendable {
    /// The validated card number (its brand is `pan.brand`).
    public let pan: PrimaryAccountNumber
    /// The expiry month.
    public let expiry: CardExpiry
    /// The cardholder's name, normalised (`FIRSTNAME I LASTNAME` for track and EMV data), or `nil`.
    public let holderName: String?
    /// The capture method.
    public let entryMode: EntryMode
    /// The CVV, for keyed entry only; used for verification and then dropped.
    public let cvv: CardVerificationValue?
    /// The three-digit service code from track or EMV track-2 data, when present.
    public let serviceCode: String?

    /// Creates captured card data from parts that are already validated.
    public init(pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, entryMode: EntryMode,
                cvv: CardVerificationValue? = nil, serviceCode: String? = nil) {
        self.pan = pan
        self.expiry = expiry
        self.holderName = holderName
        self.entryMode = entryMode
        self.cvv = cvv
        self.serviceCode = serviceCode
    }

    /// The detected brand, as the API's `cardType`.
    public var brand: CardBrand { pan.brand }
}
