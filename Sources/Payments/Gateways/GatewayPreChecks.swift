public import Vault

/// What one gateway can take, checked before anything is sent: card number lengths, the
/// reference's length and alphabet, and the amount format (which currencies it can express).
///
/// One value per gateway, in its catalogue entry (``GatewayEntry/preChecks``); adapters refuse a request that breaks them
/// without sending it, registration with verification refuses such a card with a 422, and
/// schedules and transactions refuse a currency the merchant's gateway cannot express. Sources
/// per gateway are in `docs/GATEWAYS.md`.
public struct GatewayPreChecks: Sendable, Equatable {
    /// Card number lengths (digits) the gateway accepts.
    public var cardNumberLengths: ClosedRange<Int>
    /// The longest reference (invoice or order number) the gateway stores.
    public var maximumReferenceLength: Int
    /// Whether references must be letters and digits only (a gateway with an alphanumeric invoice
    /// number); otherwise any characters are sent as they are.
    public var referenceIsAlphanumeric: Bool
    /// Fraction digits of the gateway's documented amount format (`x.xx` is 2); `nil` when the
    /// gateway takes each currency's own exponent.
    public var amountFractionDigits: Int?
    /// The ISO 4217 codes the gateway documents amounts in; `nil` when it takes any currency (its
    /// merchant account decides).
    public var currencies: Set<String>?

    /// Creates pre-checks; the defaults take whatever the vault accepts (card numbers of 12-19
    /// digits, references up to 255 characters, each currency's own exponent, any currency).
    public init(cardNumberLengths: ClosedRange<Int> = 12...19, maximumReferenceLength: Int = 255, referenceIsAlphanumeric: Bool = false,
                amountFractionDigits: Int? = nil, currencies: Set<String>? = nil) {
        self.cardNumberLengths = cardNumberLengths
        self.maximumReferenceLength = maximumReferenceLength
        self.referenceIsAlphanumeric = referenceIsAlphanumeric
        self.amountFractionDigits = amountFractionDigits
        self.currencies = currencies
    }

    /// The refusal of a card number the gateway cannot take, or `nil`.
    public func refusal(cardNumber pan: PrimaryAccountNumber) -> GatewayRefusal? {
        let length = pan.digits.count
        guard !cardNumberLengths.contains(length) else { return nil }
        return GatewayRefusal(
            code: GatewayRefusal.unsupportedCard, field: "card.number",
            message: "The merchant's gateway takes card numbers of \(cardNumberLengths.lowerBound) to \(cardNumberLengths.upperBound) digits; this card has \(length).")
    }

    /// The refusal of a currency the gateway does not take (outside ``currencies``) or whose minor
    /// unit its amount format cannot express, or `nil`.
    public func refusal(currency: Currency) -> GatewayRefusal? {
        if let currencies, !currencies.contains(currency.code) {
            return GatewayRefusal(
                code: GatewayRefusal.unsupportedCurrency, field: "currency",
                message: "The merchant's gateway takes amounts in " + currencies.sorted().joined(separator: ", ")
                    + " only; \(currency.code) is not sent.")
        }
        guard let digits = amountFractionDigits, currency.minorUnitExponent > digits else { return nil }
        return GatewayRefusal(
            code: GatewayRefusal.unsupportedCurrency, field: "currency",
            message: "The merchant's gateway takes amounts with at most \(digits) decimal places; \(currency.code) has \(currency.minorUnitExponent).")
    }

    /// The refusal of a reference the gateway cannot store, or `nil` (never truncated: truncation
    /// would break the uniqueness lookups rely on).
    public func refusal(reference: String) -> GatewayRefusal? {
        let length = reference.count
        let alphabetOK = !referenceIsAlphanumeric || reference.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard length == 0 || length > maximumReferenceLength || !alphabetOK else { return nil }
        return GatewayRefusal(
            code: GatewayRefusal.invalidReference, field: "reference",
            message: "The merchant's gateway takes references of 1 to \(maximumReferenceLength)"
                + (referenceIsAlphanumeric ? " letters and digits." : " characters."))
    }

    /// The local answer to a charge the gateway cannot take, or `nil` to send it: a hard decline
    /// `unsupported_card` for the card, a final error for the currency, a permanent error
    /// (settled, decline category `error`) for the reference.
    public func refusal(for request: ChargeRequest) -> GatewayResult? {
        if let refusal = refusal(cardNumber: request.card.pan) {
            return GatewayResult(outcome: .declined(code: refusal.code, category: .hard), responseText: "Declined by the vault: " + refusal.message)
        }
        if let refusal = refusal(currency: request.amount.currency) {
            return .error(refusal.code, retryable: false, text: refusal.message)
        }
        if let refusal = refusal(reference: request.reference) {
            // The request itself can never be sent: a permanent error, settled and never sent again.
            return .refused(refusal.code, text: refusal.message)
        }
        return nil
    }

    /// The amount in the gateway's format: the documented number of fraction digits (JPY 1000 as
    /// `1000.00` for an `x.xx` gateway), else the currency's own exponent. Integers only.
    ///
    /// Only for currencies ``refusal(currency:)`` accepts: a finer currency keeps its own exponent
    /// (the refusal is what stops it from being sent).
    public func amountString(_ amount: Money) -> String {
        guard let digits = amountFractionDigits, digits > amount.currency.minorUnitExponent else { return amount.decimalString }
        let plain = amount.decimalString
        let padding = String(repeating: "0", count: digits - amount.currency.minorUnitExponent)
        return amount.currency.minorUnitExponent == 0 ? plain + "." + padding : plain + padding
    }
}

/// Why the merchant's gateway cannot take a card, a currency or a reference; nothing was sent.
public struct GatewayRefusal: Error, Sendable, Equatable {
    /// `unsupported_card`: the card number's length is outside what the gateway takes.
    public static let unsupportedCard = "unsupported_card"
    /// `unsupported_currency`: the gateway does not take the currency, or its amount format cannot
    /// express the currency's minor unit.
    public static let unsupportedCurrency = "unsupported_currency"
    /// `invalid_reference`: the reference is too long or has characters the gateway refuses.
    public static let invalidReference = "invalid_reference"

    /// The stable code.
    public var code: String
    /// The request field at fault (`card.number`, `currency`, `reference`).
    public var field: String
    /// A sentence for the API caller; never card data.
    public var message: String
}

extension GatewayPreChecks {
    /// The pre-checks of a configured gateway name, or `nil` for a name the catalogue does not know.
    public static func forGateway(named name: String) -> GatewayPreChecks? {
        GatewayCatalogue.entry(configuredName: name)?.preChecks
    }
}
