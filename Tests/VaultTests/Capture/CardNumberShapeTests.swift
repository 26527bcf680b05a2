import PropertyBased
import Testing
@testable import Vault

/// Card numbers in free text (issue 12, finding 11): found however they are typed, masked for
/// logs, refused where text is stored in clear.
@Suite struct CardNumberShapeTests {
    /// Letters, punctuation and spaces: text around a card number, without digits.
    static let textAlphabet = Array("abcXYZ .,;:#/_()*+'\"=&?!@éß漢-") as [Character]

    static func text(_ characters: [Character?]) -> String {
        String(characters.compactMap { $0 })
    }

    /// A Luhn-valid number of `length` digits from generated digits.
    static func validNumber(_ digits: [Character], length: Int) -> String {
        let payload = String(digits.prefix(length - 1))
        return payload + String(Luhn.checkDigit(for: payload)!)
    }

    /// The number typed as people do: together, in groups of four with spaces, or with dashes.
    static func typed(_ number: String, style: Int) -> String {
        guard style > 0 else { return number }
        let separator: Character = style == 1 ? " " : "-"
        var out = ""
        for (index, digit) in number.enumerated() {
            if index > 0, index % 4 == 0 { out.append(separator) }
            out.append(digit)
        }
        return out
    }

    @Test("Luhn-valid card numbers of 13 to 19 digits embedded in random text are always found and masked")
    func embeddedNumbersAreFound() async {
        await propertyCheck(
            count: 2000, input: Gen.number.array(of: 19), Gen.int(in: 13...19), Gen.int(in: 0...2),
            Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...12), Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...12)
        ) { digits, length, style, before, after in
            let number = Self.validNumber(digits, length: length)
            let text = Self.text(before) + Self.typed(number, style: style) + Self.text(after)
            #expect(CardNumberShape.contains(text), "not found in \(CardNumberShape.masked(text).count)-character text")
            let masked = CardNumberShape.masked(text)
            #expect(masked.filter(\.isNumber) == number.prefix(6) + number.suffix(4))
            #expect(!CardNumberShape.contains(masked))
            #expect(throws: CardDataError.self) { try CardNumberShape.refuse(text, field: "description") }
        }
    }

    @Test("order numbers grouped otherwise than a typed card number are not refused, even when their digits pass Luhn")
    func referencesWithTimestampsAndCountersAreNotRefused() {
        let references = (1...300).map { "ld-1763942400-1-\($0)" }
        let luhnValid = references.map { $0.filter(\.isNumber) }.filter { $0.count >= 13 && Luhn.isValid($0) }
        #expect(!luhnValid.isEmpty, "the sample must hold Luhn-valid digit strings to mean anything")
        for reference in references {
            #expect(!CardNumberShape.contains(reference), "\(reference)")
        }
        #expect(CardNumberShape.contains("ld-" + luhnValid[0]), "written together, the same digits are refused")
    }

    @Test("digit runs that fail the Luhn check are not refused")
    func nonLuhnRunsAreNotRefused() async {
        await propertyCheck(
            count: 2000, input: Gen.number.array(of: 19), Gen.int(in: 13...19), Gen.int(in: 1...9), Gen.int(in: 0...2),
            Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...12), Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...12)
        ) { digits, length, delta, style, before, after in
            let valid = Self.validNumber(digits, length: length)
            let check = valid.last!.wholeNumberValue!
            let invalid = String(valid.dropLast()) + String((check + delta) % 10)
            // Grouped, only lengths whose groups of four hold no shorter run of 13 or more digits.
            let grouping = length == 16 ? style : 0
            let text = Self.text(before) + Self.typed(invalid, style: grouping) + Self.text(after)
            #expect(!CardNumberShape.contains(text))
            #expect(CardNumberShape.masked(text) == text)
            #expect(throws: Never.self) { try CardNumberShape.refuse(text, field: "description") }
        }
    }

    @Test(arguments: [
        "4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "ref:4111111111111111", "card 5555 5555 5555 4444 exp 12/30",
        "378282246310005", "3782 822463 10005", "3782-822463-10005", "qty 2 4111 1111 1111 1111", "6011111111111117",
        "4222222222222", "6011 1111 1111 1111 110", "INV4111111111111111X", "４１１１１１１１１１１１１１１１", "4111111111111111\n",
    ])
    func cardNumbersAsPeopleTypeThemAreFound(_ text: String) {
        #expect(CardNumberShape.contains(text), "\(CardNumberShape.masked(text))")
    }

    @Test(arguments: [
        "", "order 1234", "4111111111111112", "4111 1111 1111 1112", "41111111111111111", "4111  1111  1111  1111",
        "4111-1111 1111-1111", "4111 - 1111 - 1111 - 1111", "+44 7700 900123", "2026-11-23T22:00:00Z", "550e8400-e29b-41d4-a716-446655440000",
        "sc_ABCDEFGHIJKLMNOP", "411111111111", "4111.1111.1111.1111",
    ])
    func otherTextIsNotACardNumber(_ text: String) {
        #expect(!CardNumberShape.contains(text), "\(text)")
    }

    @Test func maskingKeepsTheFirstSixAndLastFourAndTheSeparators() {
        #expect(CardNumberShape.masked("4111111111111111") == "411111******1111")
        #expect(CardNumberShape.masked("/v1/secure-cards/4111-1111-1111-1111?x=1") == "/v1/secure-cards/4111-11**-****-1111?x=1")
        #expect(CardNumberShape.masked("pay 4111 1111 1111 1111 and 5555555555554444.") == "pay 4111 11** **** 1111 and 555555******4444.")
        #expect(CardNumberShape.masked("order 1234") == "order 1234")
    }

    @Test func requestPathsAreMaskedEvenWhenPercentEncoded() {
        #expect(CardNumberShape.maskedURLPath("/v1/secure-cards/4111%201111%201111%201111") == "/v1/secure-cards/4111 11** **** 1111")
        #expect(CardNumberShape.maskedURLPath("/v1/secure-cards/%34111111111111111") == "/v1/secure-cards/411111******1111")
        #expect(CardNumberShape.maskedURLPath("/v1/secure-cards/4111111111111111") == "/v1/secure-cards/411111******1111")
        #expect(CardNumberShape.maskedURLPath("/v1/secure-cards/cust%2D1") == "/v1/secure-cards/cust%2D1")
        #expect(CardNumberShape.maskedURLPath("/v1/transactions/txn_01JD") == "/v1/transactions/txn_01JD")
    }

    @Test func theRefusalNamesTheFieldAndNeverTheValue() {
        do {
            try CardNumberShape.refuse("my card 4111 1111 1111 1111", field: "customFields[2].value")
            Issue.record("accepted a card number")
        } catch {
            #expect(error.field == "customFields[2].value")
            #expect(error.code == "card_number_not_allowed")
            #expect(!error.message.contains("1111"))
        }
        #expect(throws: Never.self) { try CardNumberShape.refuse(Optional<String>.none, field: "description") }
    }

    @Test func merchantReferencesShapedLikeCardNumbersAreRefused() {
        for reference in ["4111111111111111", "4111-1111-1111-1111", "ref:5555555555554444"] {
            #expect(throws: CardDataError(field: "merchantReference", code: "card_number_not_allowed",
                                          message: "merchantReference looks like it contains a card number; card numbers are accepted only as card data (card.number, track or emv).")) {
                try MerchantReference(validating: reference)
            }
        }
        #expect(throws: Never.self) { try MerchantReference(validating: "4111111111111112") }
        #expect(throws: Never.self) { try MerchantReference(validating: "customer-1234") }
    }

    @Test func customerFieldsCustomFieldsAndMerchantNamesRefuseCardNumbers() {
        #expect(throws: CardDataError.self) { try Customer(email: "4111111111111111@example.com").validate() }
        #expect(throws: CardDataError.self) { try Customer(city: "Paris 4111 1111 1111 1111").validate() }
        #expect(throws: CardDataError.self) { try Customer(region: "5555-5555-5555-4444").validate() }
        #expect(throws: CardDataError.self) { try Customer(mobileNumber: "4111111111111111").validate() }
        #expect(throws: Never.self) { try Customer(email: "ada@example.com", mobileNumber: "+44 7700 900123", city: "Paris").validate() }
        let definitions = [CustomFieldDefinition(name: "Note", maxLength: 64)]
        #expect(throws: CardDataError.self) {
            try CustomFieldValidation.validate([CustomField(name: "Note", value: "card 4111111111111111")], against: definitions)
        }
        #expect(throws: Never.self) { try CustomFieldValidation.validate([CustomField(name: "Note", value: "order 4111")], against: definitions) }
        #expect(throws: CardDataError.self) {
            try CustomFieldDefinition.validateDefinitions([CustomFieldDefinition(name: "4111-1111-1111-1111", maxLength: 10)])
        }
        #expect(!MerchantName.isValid("4111-1111-1111-1111"))
        #expect(MerchantName.isValid("acme-4111"))
        #expect(!MerchantError.invalidName("4111-1111-1111-1111").description.contains("1111"))
        #expect(!MerchantError.notFound("4111111111111111").description.contains("4111111111111111"))
    }
}
