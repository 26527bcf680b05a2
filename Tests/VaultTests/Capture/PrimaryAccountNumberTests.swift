import Testing
@testable import Vault

@Suite struct PrimaryAccountNumberTests {
    @Test("valid numbers keep their digits, bin and last four", arguments: CaptureFixtures.validNumbers)
    func acceptsValidNumbers(vector: CardNumberVector) {
        guard let pan = expectSuccess({ () throws(CardDataError) in try PrimaryAccountNumber(validating: vector.number) })
        else { return }
        expectSameSecret(pan.digits, vector.number, "digits")
        expectSameSecret(pan.bin, String(vector.number.prefix(6)), "bin")
        expectSameSecret(pan.last4, String(vector.number.suffix(4)), "last4")
        #expect(pan.masked.count == vector.number.count)
    }

    @Test("spaces and dashes are removed", arguments: [
        Labeled("spaces", "4111 1111 1111 1111"), Labeled("dashes", "4111-1111-1111-1111"),
        Labeled("mixed and padded", " 4111 1111-1111 1111 "),
    ])
    func stripsSeparators(text: Labeled) {
        let pan = expectSuccess { () throws(CardDataError) in try PrimaryAccountNumber(validating: text.value) }
        expectSameSecret(pan?.digits, "4111111111111111", "digits")
    }

    @Test("masked shows the first six and last four only")
    func masking() throws {
        let visa = try PrimaryAccountNumber(validating: "4111111111111111")
        #expect(visa.masked == "411111******1111")
        #expect(visa.description == "411111******1111")
        #expect(visa.debugDescription == "PrimaryAccountNumber(411111******1111, visa)")
        #expect("\(visa)" == "411111******1111")
        let amex = try PrimaryAccountNumber(validating: "378282246310005")
        #expect(amex.masked == "378282*****0005")
        let maestro = try PrimaryAccountNumber(validating: "500000000009")
        #expect(maestro.masked == "500000**0009")
    }

    @Test("dump and reflection show only the masked number")
    func reflectionIsMasked() throws {
        let pan = try PrimaryAccountNumber(validating: "4242424242424242")
        var dumped = ""
        dump(pan, to: &dumped)
        #expect(!dumped.contains("4242424242424242"))
        #expect(dumped.contains("424242******4242"))
        #expect(!String(reflecting: pan).contains("4242424242424242"))
        #expect(!String(describing: [pan]).contains("4242424242424242"))
    }

    static let invalidNumbers: [SecretInputVector] = [
        SecretInputVector("empty", "", field: "card.number", code: "missing"),
        SecretInputVector("only separators", " - - ", field: "card.number", code: "missing"),
        SecretInputVector("letters", "4111111111111111a", field: "card.number", code: "invalid_number",
                          secrets: ["4111111111111111"]),
        SecretInputVector("dots", "4111.1111.1111.1111", field: "card.number", code: "invalid_number",
                          secrets: ["4111111111111111"]),
        SecretInputVector("arabic-indic digits", "٤١١١١١١١١١١١١١١١", field: "card.number", code: "invalid_number"),
        SecretInputVector("fullwidth digits", "４１１１１１１１１１１１１１１１", field: "card.number", code: "invalid_number"),
        SecretInputVector("11 digits", "41111111119", field: "card.number", code: "invalid_length",
                          secrets: ["41111111119"]),
        SecretInputVector("20 digits", "41111111111111111113", field: "card.number", code: "invalid_length",
                          secrets: ["41111111111111111113"]),
        SecretInputVector("huge input", String(repeating: "4", count: 10_000), field: "card.number", code: "invalid_length"),
        SecretInputVector("luhn off by one", "4111111111111112", field: "card.number", code: "luhn_check_failed",
                          secrets: ["4111111111111112"]),
        SecretInputVector("mastercard luhn", "5555555555554440", field: "card.number", code: "luhn_check_failed",
                          secrets: ["5555555555554440"]),
        SecretInputVector("unknown IIN 1", "1000000000000008", field: "card.number", code: "unknown_brand",
                          secrets: ["1000000000000008"]),
        SecretInputVector("unknown IIN 9", "9000000000000001", field: "card.number", code: "unknown_brand",
                          secrets: ["9000000000000001"]),
        SecretInputVector("visa 14", "41111111111114", field: "card.number", code: "invalid_length",
                          secrets: ["41111111111114"]),
        SecretInputVector("visa 15", "411111111111116", field: "card.number", code: "invalid_length",
                          secrets: ["411111111111116"]),
        SecretInputVector("mastercard 15", "555555555555558", field: "card.number", code: "invalid_length",
                          secrets: ["555555555555558"]),
        SecretInputVector("mastercard 17", "55555555555544440", field: "card.number", code: "invalid_length",
                          secrets: ["55555555555544440"]),
        SecretInputVector("amex 16", "3782822463100052", field: "card.number", code: "invalid_length",
                          secrets: ["3782822463100052"]),
        SecretInputVector("diners 13", "3622720627163", field: "card.number", code: "invalid_length",
                          secrets: ["3622720627163"]),
        SecretInputVector("mir 15", "220000000000004", field: "card.number", code: "invalid_length",
                          secrets: ["220000000000004"]),
        SecretInputVector("discover 15", "601111111111116", field: "card.number", code: "invalid_length",
                          secrets: ["601111111111116"]),
        SecretInputVector("jcb 15", "353011133330001", field: "card.number", code: "invalid_length",
                          secrets: ["353011133330001"]),
        SecretInputVector("unionpay 15", "620000000000000", field: "card.number", code: "invalid_length",
                          secrets: ["620000000000000"]),
        SecretInputVector("visa 12", "411111111117", field: "card.number", code: "invalid_length",
                          secrets: ["411111111117"]),
    ]

    @Test("invalid numbers fail with a code, and the message never quotes them", arguments: invalidNumbers)
    func rejectsInvalidNumbers(vector: SecretInputVector) {
        let error = expectCardDataError(field: vector.field, code: vector.code) { () throws(CardDataError) in
            try PrimaryAccountNumber(validating: vector.input)
        }
        expectNoSecrets(in: error, vector.secrets + [vector.input])
    }

    @Test("the field name is configurable")
    func customField() {
        expectCardDataError(field: "track", code: "luhn_check_failed") { () throws(CardDataError) in
            try PrimaryAccountNumber(validating: "4111111111111112", field: "track")
        }
    }

    @Test("equal digits make equal, hashable values")
    func hashable() throws {
        let a = try PrimaryAccountNumber(validating: "4111 1111 1111 1111")
        let b = try PrimaryAccountNumber(validating: "4111111111111111")
        #expect(Set([a, b]).count == 1)
    }
}
