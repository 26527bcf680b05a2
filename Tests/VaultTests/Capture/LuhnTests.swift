import Testing
@testable import Vault

@Suite struct LuhnTests {
    @Test("every public test card number passes the Luhn check", arguments: CaptureFixtures.validNumbers)
    func publicTestNumbersPass(vector: CardNumberVector) {
        #expect(Luhn.isValid(vector.number))
    }

    @Test("a wrong check digit fails", arguments: [
        Labeled("visa + 1", "4111111111111112"), Labeled("mastercard - 4", "5555555555554440"),
        Labeled("amex + 1", "378282246310006"), Labeled("ISO example - 3", "79927398710"),
    ])
    func wrongCheckDigitFails(number: Labeled) {
        #expect(!Luhn.isValid(number.value))
    }

    @Test("the classic ISO 7812 example 79927398713 passes")
    func classicExample() {
        #expect(Luhn.isValid("79927398713"))
        #expect(Luhn.checkDigit(for: "7992739871") == "3")
    }

    @Test("empty and non-digit input is never valid", arguments: [
        Labeled("empty", ""), Labeled("space", " "), Labeled("spaced card number", "4111 1111 1111 1111"),
        Labeled("letters", "abc"), Labeled("arabic-indic digits", "٤١١١"), Labeled("hex literal", "0x10"),
    ])
    func nonDigitsFail(text: Labeled) {
        #expect(!Luhn.isValid(text.value))
    }

    @Test("checkDigit completes payloads the same way as the independent test helper")
    func checkDigitMatchesHelper() {
        for payload in ["411111111111111", "37828224631000", "0", "", "12345678901234567"] {
            let expected = CaptureFixtures.withCheckDigit(payload)
            #expect(Luhn.checkDigit(for: payload).map { payload + String($0) } == expected)
        }
        #expect(Luhn.checkDigit(for: "12a") == nil)
    }

    @Test("all-zero numbers pass (the check digit scheme alone does not make a card valid)")
    func zerosPass() {
        #expect(Luhn.isValid("0000000000000000"))
    }
}
