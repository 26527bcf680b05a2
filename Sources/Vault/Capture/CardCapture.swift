/// Validates card data captured by each capture method (keyed, OCR, track, EMV) into a
/// ``CapturedCard``.
///
/// Pure: no clock, no I/O. Expiry-in-the-past is left to the caller
/// (``CardExpiry/isExpired(currentYear:currentMonth:)``). The first failure found is thrown,
/// in this order: number, card type, expiry, holder name, CVV.
public enum CardCapture {
    /// Card data typed in by a person.
    /// - Parameters:
    ///   - number: `card.number`; spaces and dashes allowed.
    ///   - expiryDate: `card.expiryDate`, `MMYY`.
    ///   - holderName: `card.holderName`, optional; trimmed, blank means none.
    ///   - cvv: `card.cvv`, optional; when sent (even empty) it must be the brand's length.
    ///   - cardType: `card.cardType`, optional; when sent it must name the detected brand.
    /// - Throws: ``CardDataError`` naming the first invalid field.
    public static func keyed(number: String, expiryDate: String, holderName: String?, cvv: String?,
                             cardType: String?) throws(CardDataError) -> CapturedCard {
        let (pan, expiry, name) = try validateCommon(number: number, expiryDate: expiryDate,
                                                     holderName: holderName, cardType: cardType)
        let verification = try cvv.map { cvv throws(CardDataError) in
            try CardVerificationValue(validating: cvv, brand: pan.brand)
        }
        return CapturedCard(pan: pan, expiry: expiry, holderName: name, entryMode: .keyed, cvv: verification)
    }

    /// Card data read by OCR from a picture of the card; the same as keyed but a CVV is never accepted.
    /// - Throws: ``CardDataError`` `cvv_not_allowed` on `card.cvv` when `cvv` is non-`nil`
    ///   (even empty), else as ``keyed(number:expiryDate:holderName:cvv:cardType:)``.
    public static func ocr(number: String, expiryDate: String, holderName: String?, cvv: String?,
                           cardType: String?) throws(CardDataError) -> CapturedCard {
        guard cvv == nil else {
            throw CardDataError(field: "card.cvv", code: CardDataError.Code.cvvNotAllowed,
                                message: "A CVV must not be sent with OCR capture.")
        }
        let (pan, expiry, name) = try validateCommon(number: number, expiryDate: expiryDate,
                                                     holderName: holderName, cardType: cardType)
        return CapturedCard(pan: pan, expiry: expiry, holderName: name, entryMode: .ocr)
    }

    /// Raw magnetic-stripe data; see ``MagneticStripe`` for the accepted shapes.
    /// - Throws: ``CardDataError`` on field `track`.
    public static func track(_ raw: String) throws(CardDataError) -> CapturedCard {
        let tracks = try MagneticStripe.parse(raw)
        return CapturedCard(pan: tracks.pan, expiry: tracks.expiry, holderName: tracks.holderName,
                            entryMode: .track, serviceCode: tracks.serviceCode)
    }

    /// Hex BER-TLV data from the chip; see ``BERTLV`` and ``EMVCardData``.
    /// - Throws: ``CardDataError`` on field `emv`; `missing` when there is no data.
    public static func emv(_ hex: String) throws(CardDataError) -> CapturedCard {
        let elements = try BERTLV.parse(hex: hex)
        guard !elements.isEmpty else {
            throw CardDataError(field: "emv", code: CardDataError.Code.missing, message: "The EMV data is empty.")
        }
        let data = try EMVCardData(elements: elements)
        return CapturedCard(pan: data.pan, expiry: data.expiry, holderName: data.holderName,
                            entryMode: .emv, serviceCode: data.serviceCode)
    }

    /// Checks that a client-supplied `cardType` names `brand`.
    /// - Throws: ``CardDataError`` on `card.cardType`: `unknown_brand` for an unrecognised name,
    ///   `brand_mismatch` for another brand.
    public static func validateCardType(_ cardType: String, matches brand: CardBrand) throws(CardDataError) {
        guard let claimed = CardBrand(cardType: cardType) else {
            throw CardDataError(field: "card.cardType", code: CardDataError.Code.unknownBrand,
                                message: "The card type is not a supported card brand.")
        }
        guard claimed == brand else {
            throw CardDataError(field: "card.cardType", code: CardDataError.Code.brandMismatch,
                                message: "The card type \(claimed.displayName) does not match the card number's brand.")
        }
    }

    private static func validateCommon(number: String, expiryDate: String, holderName: String?,
                                       cardType: String?) throws(CardDataError)
        -> (PrimaryAccountNumber, CardExpiry, String?)
    {
        let pan = try PrimaryAccountNumber(validating: number)
        if let cardType { try validateCardType(cardType, matches: pan.brand) }
        let expiry = try CardExpiry(mmyy: expiryDate)
        let name = try CardholderName.validatedKeyed(holderName)
        return (pan, expiry, name)
    }
}
