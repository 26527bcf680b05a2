import Testing
@testable import Vault

/// Every failing case in the capture tables, run once more and checked against every card number
/// and CVV that any table uses: no message or description may contain one.
@Suite struct ErrorMessageSecrecyTests {
    static var knownSecrets: [String] {
        CaptureFixtures.validNumbers.map(\.number)
            + PrimaryAccountNumberTests.invalidNumbers.flatMap(\.secrets)
            + MagneticStripeTests.invalid.flatMap(\.secrets)
            + EMVCaptureTests.invalid.flatMap(\.secrets)
            + CardCaptureKeyedTests.failures.flatMap(\.secrets)
            + ["123", "1234", "12345", "123456789012"]
    }

    static func errors() -> [CardDataError] {
        var errors: [CardDataError] = []
        func collect<T>(_ body: () throws(CardDataError) -> T) {
            do { _ = try body() } catch { errors.append(error) }
        }
        for vector in PrimaryAccountNumberTests.invalidNumbers {
            collect { () throws(CardDataError) in try PrimaryAccountNumber(validating: vector.input) }
        }
        for vector in CardVerificationValueTests.invalid {
            collect { () throws(CardDataError) in try CardVerificationValue(validating: vector.input, brand: .visa) }
        }
        for vector in CardCaptureKeyedTests.failures {
            collect { () throws(CardDataError) in try CardCaptureKeyedTests.keyed(vector.input) }
        }
        for vector in MagneticStripeTests.invalid {
            collect { () throws(CardDataError) in try CardCapture.track(vector.input) }
        }
        for vector in EMVCaptureTests.invalid {
            collect { () throws(CardDataError) in try CardCapture.emv(vector.input) }
        }
        for number in CaptureFixtures.validNumbers.map(\.number) {
            collect { () throws(CardDataError) in
                try CardCapture.ocr(number: number, expiryDate: "1330", holderName: nil, cvv: nil, cardType: nil)
            }
            collect { () throws(CardDataError) in
                try CardCapture.ocr(number: number, expiryDate: "1230", holderName: nil, cvv: "123", cardType: nil)
            }
            collect { () throws(CardDataError) in
                try CardCapture.keyed(number: number, expiryDate: "1230", holderName: nil, cvv: "12345", cardType: "mir")
            }
            collect { () throws(CardDataError) in
                try CardCapture.keyed(number: number, expiryDate: "1230", holderName: nil, cvv: "12345", cardType: nil)
            }
        }
        return errors
    }

    @Test("every table's failures produced errors")
    func tablesFail() {
        let expected = PrimaryAccountNumberTests.invalidNumbers.count + CardVerificationValueTests.invalid.count
            + CardCaptureKeyedTests.failures.count + MagneticStripeTests.invalid.count + EMVCaptureTests.invalid.count
            + CaptureFixtures.validNumbers.count * 4
        #expect(Self.errors().count == expected)
    }

    @Test("no error message or description contains a PAN or CVV that was fed in")
    func noSecretsInMessages() {
        let secrets = Self.knownSecrets.filter { $0.count >= 3 }
        for error in Self.errors() {
            let leaked = secrets.contains { error.message.contains($0) || error.description.contains($0) }
            #expect(!leaked, "error for \(error.field) (\(error.code)) quotes card data")
        }
    }

    @Test("messages contain no long digit runs at all")
    func noDigitRuns() {
        for error in Self.errors() {
            var run = 0
            var longest = 0
            for character in error.description {
                run = character.isNumber ? run + 1 : 0
                longest = max(longest, run)
            }
            #expect(longest < 4, "error for \(error.field) (\(error.code)) has a digit run")
        }
    }
}
