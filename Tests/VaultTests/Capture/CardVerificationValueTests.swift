import Testing
@testable import Vault

@Suite struct CardVerificationValueTests {
    @Test("CVV length per brand", arguments: CardBrand.allCases)
    func lengthPerBrand(brand: CardBrand) {
        let good = String(repeating: "7", count: brand.cvvLength)
        let value = expectSuccess { () throws(CardDataError) in try CardVerificationValue(validating: good, brand: brand) }
        expectSameSecret(value?.digits, good, "cvv")
        for wrongLength in [brand.cvvLength - 1, brand.cvvLength + 1] {
            let wrong = String(repeating: "7", count: wrongLength)
            let error = expectCardDataError(field: "card.cvv", code: "invalid_cvv") { () throws(CardDataError) in
                try CardVerificationValue(validating: wrong, brand: brand)
            }
            expectNoSecrets(in: error, [wrong])
        }
    }

    static let invalid: [SecretInputVector] = [
        SecretInputVector("letters", "12a", field: "card.cvv", code: "invalid_cvv"),
        SecretInputVector("spaces", "1 23", field: "card.cvv", code: "invalid_cvv", secrets: ["123"]),
        SecretInputVector("signed", "-123", field: "card.cvv", code: "invalid_cvv", secrets: ["123"]),
        SecretInputVector("fullwidth", "１２３", field: "card.cvv", code: "invalid_cvv"),
        SecretInputVector("long", "123456789012", field: "card.cvv", code: "invalid_cvv", secrets: ["123456789012"]),
        SecretInputVector("empty", "", field: "card.cvv", code: "missing"),
    ]

    @Test("malformed CVVs are rejected without quoting them", arguments: invalid)
    func rejectsMalformed(vector: SecretInputVector) {
        let error = expectCardDataError(field: vector.field, code: vector.code) { () throws(CardDataError) in
            try CardVerificationValue(validating: vector.input, brand: .visa)
        }
        expectNoSecrets(in: error, vector.secrets + [vector.input])
    }

    @Test("description, debug description and dump never show the digits")
    func neverPrinted() throws {
        let cvv = try CardVerificationValue(validating: "9876", brand: .amex)
        #expect(cvv.description == "***")
        #expect("\(cvv)" == "***")
        #expect(!String(reflecting: cvv).contains("9876"))
        var dumped = ""
        dump(cvv, to: &dumped)
        #expect(!dumped.contains("9876"))
    }
}
