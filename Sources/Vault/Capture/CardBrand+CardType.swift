extension CardBrand {
    /// Parses a client-supplied `cardType` such as `VISA`, `MasterCard`, `American Express`,
    /// `amex`, `Diners Club` or `China UnionPay`: case-insensitive, ignoring spaces, `_` and `-`.
    /// Returns `nil` for anything else.
    public init?(cardType: String) {
        guard cardType.utf8.count <= 40 else { return nil }
        let key = String(
            cardType.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" }
        )
        guard let brand = CardBrand.cardTypeAliases[key] else { return nil }
        self = brand
    }

    private static let cardTypeAliases: [String: CardBrand] = {
        var aliases: [String: CardBrand] = [:]
        for brand in CardBrand.allCases { aliases[brand.rawValue] = brand }
        aliases["americanexpress"] = .amex
        aliases["mc"] = .mastercard
        aliases["dinersclub"] = .diners
        aliases["dinersclubinternational"] = .diners
        aliases["chinaunionpay"] = .unionpay
        aliases["cup"] = .unionpay
        aliases["visaelectron"] = .visa
        return aliases
    }()
}
