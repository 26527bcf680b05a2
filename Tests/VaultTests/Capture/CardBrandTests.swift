import Testing
@testable import Vault

@Suite struct CardBrandTests {
    @Test("each public test number is detected as its brand", arguments: CaptureFixtures.validNumbers)
    func detectsBrand(vector: CardNumberVector) {
        #expect(CardBrand.detect(iin: vector.number) == vector.brand)
        let pan = expectSuccess { () throws(CardDataError) in try PrimaryAccountNumber(validating: vector.number) }
        #expect(pan?.brand == vector.brand)
        if let pan { #expect(CardBrand.detect(pan) == vector.brand) }
    }

    @Test("IIN boundaries", arguments: [
        ("2199", nil), ("2200", CardBrand.mir), ("2204", .mir), ("2205", nil), ("2220", nil),
        ("2221", .mastercard), ("2720", .mastercard), ("2721", nil), ("50", .maestro), ("51", .mastercard),
        ("55", .mastercard), ("56", .maestro), ("58", .maestro), ("59", nil), ("300", .diners), ("305", .diners),
        ("306", nil), ("3095", .diners), ("3096", nil), ("34", .amex), ("35", nil), ("3527", nil), ("3528", .jcb),
        ("3589", .jcb), ("3590", nil), ("36", .diners), ("37", .amex), ("38", .diners), ("39", .diners),
        ("4", .visa), ("6011", .discover), ("6012", nil), ("643", nil), ("644", .discover), ("649", .discover),
        ("65", .discover), ("62", .unionpay), ("622126", .unionpay), ("622925", .unionpay), ("6304", .maestro),
        ("67", .maestro), ("8100", .unionpay), ("8171", .unionpay), ("8172", nil), ("1", nil), ("7", nil), ("9", nil),
    ] as [(String, CardBrand?)])
    func iinBoundaries(iin: String, brand: CardBrand?) {
        #expect(CardBrand.detect(iin: iin) == brand)
    }

    @Test("detection needs digits at the start", arguments: ["", " 4111", "x4", "-4"])
    func nonDigitsDetectNothing(iin: String) {
        #expect(CardBrand.detect(iin: iin) == nil)
    }

    @Test("allowed lengths per brand")
    func allowedLengths() {
        #expect(CardBrand.visa.allowedLengths == [13, 16, 19])
        #expect(CardBrand.mastercard.allowedLengths == [16])
        #expect(CardBrand.amex.allowedLengths == [15])
        #expect(CardBrand.diners.allowedLengths == Set(14...19))
        #expect(CardBrand.maestro.allowedLengths == Set(12...19))
        for brand in [CardBrand.discover, .jcb, .unionpay, .mir] {
            #expect(brand.allowedLengths == Set(16...19))
        }
    }

    @Test("CVV is 4 digits for amex and 3 for every other brand", arguments: CardBrand.allCases)
    func cvvLength(brand: CardBrand) {
        #expect(brand.cvvLength == (brand == .amex ? 4 : 3))
    }

    @Test("cardType names and aliases", arguments: [
        ("VISA", CardBrand.visa), ("visa", .visa), ("Visa Electron", .visa), ("MasterCard", .mastercard),
        ("master_card", .mastercard), ("MC", .mastercard), ("American Express", .amex), ("AMEX", .amex),
        ("Discover", .discover), ("jcb", .jcb), ("Diners Club", .diners), ("diners", .diners),
        ("China UnionPay", .unionpay), ("UNIONPAY", .unionpay), ("Maestro", .maestro), ("MIR", .mir), ("mir", .mir),
    ])
    func cardTypeAliases(name: String, brand: CardBrand) {
        #expect(CardBrand(cardType: name) == brand)
    }

    @Test("unknown cardType names", arguments: ["", "VISAA", "Dankort", "card", String(repeating: "visa", count: 20)])
    func unknownCardTypes(name: String) {
        #expect(CardBrand(cardType: name) == nil)
    }
}
