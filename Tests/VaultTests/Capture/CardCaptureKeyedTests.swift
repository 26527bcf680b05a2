import Testing
@testable import Vault

@Suite struct CardCaptureKeyedTests {
    @Test("keyed capture of every brand, with the brand's CVV and its own cardType", arguments: CaptureFixtures.validNumbers)
    func keyedEveryBrand(vector: CardNumberVector) {
        let cvv = String(repeating: "4", count: vector.brand.cvvLength)
        guard let card = expectSuccess({ () throws(CardDataError) in
            try CardCapture.keyed(number: vector.number, expiryDate: "1230", holderName: "Jane Q Public",
                                  cvv: cvv, cardType: vector.brand.rawValue.uppercased())
        }) else { return }
        #expect(card.entryMode == .keyed)
        #expect(card.brand == vector.brand)
        #expect(card.expiry.mmyy == "1230")
        #expect(card.holderName == "Jane Q Public")
        expectSameSecret(card.cvv?.digits, cvv, "cvv")
        expectSameSecret(card.pan.digits, vector.number, "digits")
    }

    @Test("keyed capture without optional fields")
    func keyedMinimal() throws {
        let card = try CardCapture.keyed(number: "4242 4242 4242 4242", expiryDate: "0130", holderName: nil, cvv: nil, cardType: nil)
        #expect(card.cvv == nil)
        #expect(card.holderName == nil)
        #expect(card.serviceCode == nil)
    }

    @Test("holder names are trimmed and blank means none", arguments: [
        ("  Jane   Doe ", "Jane Doe"), ("   ", nil), ("", nil), ("Zoë O'Brien-Łukasz", "Zoë O'Brien-Łukasz"),
    ] as [(String, String?)])
    func holderNames(input: String, expected: String?) throws {
        let card = try CardCapture.keyed(number: "4111111111111111", expiryDate: "1230", holderName: input, cvv: nil, cardType: nil)
        #expect(card.holderName == expected)
    }

    @Test("holder names with control characters or over 100 characters are rejected", arguments: [
        ("Jane\nDoe", "invalid_format"), ("Jane\u{0}", "invalid_format"),
        (String(repeating: "a", count: 101), "too_long"), (String(repeating: "é", count: 5_000), "too_long"),
    ])
    func badHolderNames(input: String, code: String) {
        expectCardDataError(field: "card.holderName", code: code) { () throws(CardDataError) in
            try CardCapture.keyed(number: "4111111111111111", expiryDate: "1230", holderName: input, cvv: nil, cardType: nil)
        }
    }

    static let failures: [SecretInputVector] = [
        SecretInputVector("cardType mismatch visa as mastercard", "4111111111111111|MASTERCARD|123|1230",
                          field: "card.cardType", code: "brand_mismatch", secrets: ["4111111111111111", "123"]),
        SecretInputVector("cardType mismatch amex as visa", "378282246310005|VISA|1234|1230",
                          field: "card.cardType", code: "brand_mismatch", secrets: ["378282246310005", "1234"]),
        SecretInputVector("cardType mismatch mir as mastercard", "2200000000000004|Mastercard|123|1230",
                          field: "card.cardType", code: "brand_mismatch", secrets: ["2200000000000004"]),
        SecretInputVector("cardType mismatch maestro as mastercard", "6759649826438453|mastercard|123|1230",
                          field: "card.cardType", code: "brand_mismatch", secrets: ["6759649826438453"]),
        SecretInputVector("cardType unknown", "4111111111111111|Dankort|123|1230",
                          field: "card.cardType", code: "unknown_brand", secrets: ["4111111111111111"]),
        SecretInputVector("cvv 3 digits on amex", "378282246310005|AMEX|123|1230",
                          field: "card.cvv", code: "invalid_cvv", secrets: ["378282246310005"]),
        SecretInputVector("cvv 4 digits on visa", "4111111111111111||1234|1230",
                          field: "card.cvv", code: "invalid_cvv", secrets: ["4111111111111111", "1234"]),
        SecretInputVector("cvv empty string", "4111111111111111|||1230",
                          field: "card.cvv", code: "missing", secrets: ["4111111111111111"]),
        SecretInputVector("cvv letters", "5555555555554444||12x|1230",
                          field: "card.cvv", code: "invalid_cvv", secrets: ["5555555555554444"]),
        SecretInputVector("expiry month 00", "4111111111111111||123|0030",
                          field: "card.expiryDate", code: "invalid_expiry", secrets: ["4111111111111111", "123"]),
        SecretInputVector("expiry month 13", "4111111111111111||123|1330",
                          field: "card.expiryDate", code: "invalid_expiry", secrets: ["4111111111111111", "123"]),
        SecretInputVector("expiry slash", "4111111111111111||123|12/30",
                          field: "card.expiryDate", code: "invalid_expiry", secrets: ["4111111111111111", "123"]),
        SecretInputVector("luhn", "4111111111111121||123|1230",
                          field: "card.number", code: "luhn_check_failed", secrets: ["4111111111111121", "123"]),
        SecretInputVector("number first", "4111111111111121|MASTERCARD|1|0000",
                          field: "card.number", code: "luhn_check_failed", secrets: ["4111111111111121"]),
    ]

    /// Vector input: `number|cardType|cvv|expiry`; an empty cardType means nil, `|||` means an empty CVV.
    static func keyed(_ input: String) throws(CardDataError) -> CapturedCard {
        let parts = input.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let cardType = parts[1].isEmpty ? nil : parts[1]
        return try CardCapture.keyed(number: parts[0], expiryDate: parts[3], holderName: nil, cvv: parts[2], cardType: cardType)
    }

    @Test("keyed failures name the field, and no message quotes the PAN or CVV", arguments: failures)
    func keyedFailures(vector: SecretInputVector) {
        let error = expectCardDataError(field: vector.field, code: vector.code) { () throws(CardDataError) in
            try Self.keyed(vector.input)
        }
        expectNoSecrets(in: error, vector.secrets)
    }

    @Test("a past expiry is accepted by capture and caught by isExpired")
    func pastExpiryLeftToCaller() throws {
        let card = try CardCapture.keyed(number: "4111111111111111", expiryDate: "0520", holderName: nil, cvv: nil, cardType: nil)
        #expect(card.expiry.isExpired(currentYear: CaptureFixtures.currentYear, currentMonth: CaptureFixtures.currentMonth))
        let current = try CardCapture.keyed(number: "4111111111111111", expiryDate: "0626", holderName: nil, cvv: nil, cardType: nil)
        #expect(!current.expiry.isExpired(currentYear: CaptureFixtures.currentYear, currentMonth: CaptureFixtures.currentMonth))
    }

    @Test("OCR capture never carries a CVV")
    func ocrCapture() throws {
        let card = try CardCapture.ocr(number: "5555555555554444", expiryDate: "1129", holderName: "JANE DOE", cvv: nil, cardType: "MasterCard")
        #expect(card.entryMode == .ocr)
        #expect(card.cvv == nil)
        #expect(card.brand == .mastercard)
    }

    @Test("OCR with a CVV is rejected, even an empty one", arguments: ["123", "", "1234"])
    func ocrRejectsCVV(cvv: String) {
        let error = expectCardDataError(field: "card.cvv", code: "cvv_not_allowed") { () throws(CardDataError) in
            try CardCapture.ocr(number: "4111111111111111", expiryDate: "1230", holderName: nil, cvv: cvv, cardType: nil)
        }
        expectNoSecrets(in: error, ["4111111111111111", cvv])
    }

    @Test("OCR validates number, cardType and expiry like keyed")
    func ocrValidates() {
        expectCardDataError(field: "card.number", code: "luhn_check_failed") { () throws(CardDataError) in
            try CardCapture.ocr(number: "4111111111111112", expiryDate: "1230", holderName: nil, cvv: nil, cardType: nil)
        }
        expectCardDataError(field: "card.cardType", code: "brand_mismatch") { () throws(CardDataError) in
            try CardCapture.ocr(number: "4111111111111111", expiryDate: "1230", holderName: nil, cvv: nil, cardType: "amex")
        }
        expectCardDataError(field: "card.expiryDate", code: "invalid_expiry") { () throws(CardDataError) in
            try CardCapture.ocr(number: "4111111111111111", expiryDate: "1300", holderName: nil, cvv: nil, cardType: nil)
        }
    }
}
