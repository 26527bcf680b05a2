public import Vault

extension Money {
    /// The amount as gateways want it: a plain decimal with exactly the currency's number of
    /// fraction digits (`10.00` USD, `1000` JPY, `1.250` KWD), from integers only.
    ///
    /// `nil` for negative amounts: gateways take positive amounts and say what to do with them.
    public var gatewayDecimal: String? {
        minorUnits >= 0 ? decimalString : nil
    }

    /// The smallest positive amount in this currency: one minor unit (0.01 USD, 1 JPY, 0.001 KWD).
    var oneMinorUnit: Money { Money(minorUnits: 1, currency: currency) }
}
