/// Keyed or OCR card data as the merchant gave it, before capture parsing.
public struct CardInput: Sendable, Equatable {
    /// PAN, keyed or read by OCR.
    public var number: String?
    /// MMYY.
    public var expiryDate: String?
    /// Cardholder name.
    public var holderName: String?
    /// Keyed only; used for verification and never stored.
    public var cvv: String?
    /// Expected brand; must match the detected one.
    public var cardType: String?

    /// Creates card input.
    public init(number: String? = nil, expiryDate: String? = nil, holderName: String? = nil, cvv: String? = nil, cardType: String? = nil) {
        self.number = number
        self.expiryDate = expiryDate
        self.holderName = holderName
        self.cvv = cvv
        self.cardType = cardType
    }
}

/// New card data by one of the capture methods (keyed, OCR, track, EMV).
public struct CardSource: Sendable, Equatable {
    /// `keyed`, `ocr`, `track` or `emv`.
    public var method: String?
    /// For keyed and OCR.
    public var card: CardInput?
    /// Raw magnetic-stripe data.
    public var track: String?
    /// Hex BER-TLV from the chip.
    public var emv: String?

    /// Creates a source.
    public init(method: String?, card: CardInput? = nil, track: String? = nil, emv: String? = nil) {
        self.method = method
        self.card = card
        self.track = track
        self.emv = emv
    }

    /// Whether any card data was given at all.
    public var isPresent: Bool { method != nil || card != nil || track != nil || emv != nil }

    /// The new expiry of an update that changes only the expiry date (`card: {expiryDate}` alone, no
    /// method, number or other card field); nil otherwise.
    public var expiryDateAlone: String? {
        guard method == nil, track == nil, emv == nil, let card, let expiryDate = card.expiryDate,
            card.number == nil, card.holderName == nil, card.cvv == nil, card.cardType == nil
        else { return nil }
        return expiryDate
    }

    /// Parses and validates the card data by its method.
    /// - Throws: `CardDataError` naming the field.
    public func capture() throws(CardDataError) -> CapturedCard {
        let method = self.method ?? (track != nil ? "track" : emv != nil ? "emv" : "keyed")
        switch method {
        case "keyed", "ocr":
            try reject(track, field: "track", method: method)
            try reject(emv, field: "emv", method: method)
            guard let card else { throw CardDataError(field: "card", code: "missing", message: "card is required for method \(method).") }
            guard let number = card.number else { throw CardDataError(field: "card.number", code: "missing", message: "card.number is required.") }
            guard let expiry = card.expiryDate else {
                throw CardDataError(field: "card.expiryDate", code: "missing", message: "card.expiryDate is required (MMYY).")
            }
            if method == "keyed" {
                return try CardCapture.keyed(number: number, expiryDate: expiry, holderName: card.holderName, cvv: card.cvv, cardType: card.cardType)
            }
            return try CardCapture.ocr(number: number, expiryDate: expiry, holderName: card.holderName, cvv: card.cvv, cardType: card.cardType)
        case "track":
            try reject(card, field: "card", method: method)
            try reject(emv, field: "emv", method: method)
            guard let track else { throw CardDataError(field: "track", code: "missing", message: "track is required for method track.") }
            return try CardCapture.track(track)
        case "emv":
            try reject(card, field: "card", method: method)
            try reject(track, field: "track", method: method)
            guard let emv else { throw CardDataError(field: "emv", code: "missing", message: "emv is required for method emv.") }
            return try CardCapture.emv(emv)
        default:
            throw CardDataError(field: "method", code: "invalid_format", message: "method must be keyed, ocr, track or emv.")
        }
    }

    private func reject(_ value: (some Any)?, field: String, method: String) throws(CardDataError) {
        if value != nil {
            throw CardDataError(field: field, code: "not_allowed", message: "\(field) is not used with method \(method).")
        }
    }
}
