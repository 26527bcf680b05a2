import Testing
@testable import Vault

/// A card number used as a test argument; shown in test output by its label, never its digits.
struct CardNumberVector: Sendable, CustomTestStringConvertible {
    let label: String
    let number: String
    let brand: CardBrand

    init(_ label: String, _ number: String, _ brand: CardBrand) {
        self.label = label
        self.number = number
        self.brand = brand
    }

    var testDescription: String { label }
}

/// Any sensitive input (track, EMV hex, CVV) used as a test argument, shown by its label only.
struct SecretInputVector: Sendable, CustomTestStringConvertible {
    let label: String
    let input: String
    let field: String
    let code: String
    /// Card data inside `input` that must never appear in an error message.
    let secrets: [String]

    init(_ label: String, _ input: String, field: String, code: String, secrets: [String] = []) {
        self.label = label
        self.input = input
        self.field = field
        self.code = code
        self.secrets = secrets
    }

    var testDescription: String { label }
}

enum CaptureFixtures {
    /// Public test card numbers (Stripe, Adyen, Braintree, PayPal documentation), Luhn-valid.
    static let validNumbers: [CardNumberVector] = [
        CardNumberVector("visa 16 (4111)", "4111111111111111", .visa),
        CardNumberVector("visa 16 (4242)", "4242424242424242", .visa),
        CardNumberVector("visa 13", "4222222222222", .visa),
        CardNumberVector("visa 19", "4111111111111111110", .visa),
        CardNumberVector("visa debit", "4000056655665556", .visa),
        CardNumberVector("mastercard 5555", "5555555555554444", .mastercard),
        CardNumberVector("mastercard 5105", "5105105105105100", .mastercard),
        CardNumberVector("mastercard 2-series", "2223003122003222", .mastercard),
        CardNumberVector("mastercard debit", "5200828282828210", .mastercard),
        CardNumberVector("amex 3782", "378282246310005", .amex),
        CardNumberVector("amex 3714", "371449635398431", .amex),
        CardNumberVector("discover 6011", "6011111111111117", .discover),
        CardNumberVector("discover 6011 0009", "6011000990139424", .discover),
        CardNumberVector("discover 644", "6445644564456445", .discover),
        CardNumberVector("discover 65", "6500000000000002", .discover),
        CardNumberVector("discover 19", "6011000000000000001", .discover),
        CardNumberVector("jcb 3530", "3530111333300000", .jcb),
        CardNumberVector("jcb 3566", "3566002020360505", .jcb),
        CardNumberVector("diners 14 (36)", "36227206271667", .diners),
        CardNumberVector("diners 16 (305)", "3056930009020004", .diners),
        CardNumberVector("diners 14 (38)", "38520000023237", .diners),
        CardNumberVector("diners 3095", "30950000000000", .diners),
        CardNumberVector("unionpay 62", "6200000000000005", .unionpay),
        CardNumberVector("unionpay debit", "6200000000000047", .unionpay),
        CardNumberVector("unionpay 19", "6205500000000000004", .unionpay),
        CardNumberVector("unionpay 622126 (co-branded)", "62212600000000001", .unionpay),
        CardNumberVector("unionpay 81", "8171000000000006", .unionpay),
        CardNumberVector("maestro 6759", "6759649826438453", .maestro),
        CardNumberVector("maestro 19", "6799990100000000019", .maestro),
        CardNumberVector("maestro 12", "500000000009", .maestro),
        CardNumberVector("maestro 6304", "6304000000000000", .maestro),
        CardNumberVector("maestro 56", "56000000000003", .maestro),
        CardNumberVector("mir 2200", "2200000000000004", .mir),
        CardNumberVector("mir 2201", "2201382000000013", .mir),
        CardNumberVector("mir 2204 19", "2204000000000000006", .mir),
    ]

    /// Leading digits per brand for generating numbers (independent of the production table).
    static let prefixes: [CardBrand: [String]] = [
        .visa: ["4"],
        .mastercard: ["51", "55", "2221", "2720", "2500"],
        .amex: ["34", "37"],
        .discover: ["6011", "644", "649", "65"],
        .jcb: ["3528", "3589", "3540"],
        .diners: ["300", "305", "3095", "36", "38", "39"],
        .unionpay: ["62", "622126", "622925", "8100", "8171"],
        .maestro: ["50", "56", "58", "6304", "67"],
        .mir: ["2200", "2204"],
    ]

    /// `payload` + its Luhn check digit, computed here independently of `Luhn`.
    static func withCheckDigit(_ payload: String) -> String {
        var sum = 0
        for (offset, character) in payload.reversed().enumerated() {
            var digit = character.wholeNumberValue ?? 0
            if offset % 2 == 0 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return payload + String((10 - sum % 10) % 10)
    }

    /// Today as the tests pretend it is: June 2026.
    static let currentYear = 2026
    static let currentMonth = 6
}

/// Runs `body`, which must throw a ``CardDataError`` with `field` and `code`, and returns the error.
@discardableResult
func expectCardDataError<T>(field: String, code: String, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws(CardDataError) -> T) -> CardDataError? {
    do {
        _ = try body()
        Issue.record("Expected \(code) on \(field), but it succeeded.", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.field == field, sourceLocation: sourceLocation)
        #expect(error.code == code, sourceLocation: sourceLocation)
        return error
    }
}

/// Runs `body`, which must not throw; records the error's (safe) description otherwise.
func expectSuccess<T>(sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws(CardDataError) -> T) -> T? {
    do {
        return try body()
    } catch {
        Issue.record("Unexpected \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Records an issue, without printing either value, when `actual` and `expected` differ.
func expectSameSecret(_ actual: String?, _ expected: String, _ what: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
    let same = actual == expected
    #expect(same, "\(what) differs from the expected value", sourceLocation: sourceLocation)
}

/// Records an issue when the error's message or description contains any of `secrets`
/// (or their digits with separators removed).
func expectNoSecrets(in error: CardDataError?, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error else { return }
    for secret in secrets where secret.count >= 3 {
        let digitsOnly = String(secret.filter(\.isNumber))
        let candidates = [secret, digitsOnly].filter { $0.count >= 3 }
        let leaked = candidates.contains { error.message.contains($0) || error.description.contains($0) }
        #expect(!leaked, "error message for \(error.field) quotes the input", sourceLocation: sourceLocation)
    }
}

/// A sensitive string used as a test argument, shown in test output by its label only.
struct Labeled: Sendable, CustomTestStringConvertible {
    let label: String
    let value: String

    init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }

    var testDescription: String { label }
}
