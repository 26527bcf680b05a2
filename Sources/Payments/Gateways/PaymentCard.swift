public import Vault

/// The card data one gateway call needs: number, expiry and the optional extras gateways check.
///
/// Printing never shows the number or the CVV: `description`, `debugDescription` and the
/// reflection mirror show the masked number and expiry only.
public struct PaymentCard: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The card number.
    public var pan: PrimaryAccountNumber
    /// The expiry month.
    public var expiry: CardExpiry
    /// The cardholder's name, when known (sent as billing first/last name).
    public var holderName: String?
    /// The CVV, only for the one call that verifies it; never stored.
    public var cvv: CardVerificationValue?
    /// The billing postal code, for address verification (AVS).
    public var postalCode: String?

    /// Creates card data for a gateway call.
    public init(
        pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String? = nil,
        cvv: CardVerificationValue? = nil, postalCode: String? = nil
    ) {
        self.pan = pan
        self.expiry = expiry
        self.holderName = holderName
        self.cvv = cvv
        self.postalCode = postalCode
    }

    /// Card data from a capture (keyed, OCR, track, EMV), with an optional billing postal code.
    public init(_ captured: CapturedCard, postalCode: String? = nil) {
        self.init(pan: captured.pan, expiry: captured.expiry, holderName: captured.holderName,
                  cvv: captured.cvv, postalCode: postalCode)
    }

    /// `PaymentCard(411111******1111, 12/2030)`: never the digits or the CVV.
    public var description: String { "PaymentCard(\(pan.masked), \(expiry))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the masked number and expiry only, so `dump` cannot leak card data.
    public var customMirror: Mirror {
        Mirror(self, children: ["pan": pan.masked, "expiry": expiry.description,
                                "cvv": cvv == nil ? "none" : "***"], displayStyle: .struct)
    }
}
