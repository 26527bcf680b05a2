import PropertyBased
import Testing
@testable import Vault

/// Card numbers in free text: found however they are written (any separator, any digit form,
/// inside longer runs), masked for logs, refused where text is stored in clear.
@Suite struct CardNumberShapeTests {
    /// Letters, punctuation and spaces: text around a card number, without digits.
    static let textAlphabet = Array("abcXYZ .,;:#/_()*+'\"=&?!@éß漢-") as [Character]

    static func text(_ characters: [Character?]) -> String {
        String(characters.compactMap { $0 })
    }

    /// Issuer prefixes of every brand, each with a length the brand issues.
    static let issuers: [(prefix: String, lengths: [Int])] = [
        ("4", [13, 16, 19]), ("51", [16]), ("2221", [16]), ("34", [15]), ("37", [15]), ("6011", [16, 19]), ("65", [16, 17]),
        ("3528", [16, 19]), ("36", [14, 19]), ("62", [16, 18]), ("2200", [16]), ("50", [12, 16]), ("6304", [16, 19]),
    ]

    /// A Luhn-valid card number: an issuer's prefix, generated digits, the check digit.
    static func cardNumber(_ digits: [Character], issuer: Int, length: Int) -> String {
        let (prefix, lengths) = issuers[issuer % issuers.count]
        let total = max(13, lengths[length % lengths.count])
        let payload = prefix + String(digits.prefix(total - 1 - prefix.count))
        return payload + String(Luhn.checkDigit(for: payload)!)
    }

    /// Separators people, exports and attackers put between digits: spaces of every kind, dashes,
    /// dots, underscores, colons, slashes, doubled, and invisible format characters.
    static let separators = [
        " ", "-", ".", "_", ":", "/", "  ", "--", " - ", "\u{00A0}", "\u{200B}", "\u{2009}", "\u{3000}", "\u{FEFF}", "\u{E0020}", "\u{E0041}",
        "\u{2060}", "\u{00AD}", "*", "+", "|",
    ]

    /// Each digit's other forms: full-width, superscript, mathematical, Arabic-Indic, Devanagari.
    static func form(_ digit: Character, style: Int) -> String {
        let value = digit.wholeNumberValue!
        let bases: [UInt32] = [0x30, 0xFF10, 0x1D7CE, 0x0660, 0x0966]
        let superscripts: [UInt32] = [0x2070, 0x00B9, 0x00B2, 0x00B3, 0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079]
        let scalar = style == 5 ? superscripts[value] : bases[style % bases.count] + UInt32(value)
        return String(Character(Unicode.Scalar(scalar)!))
    }

    /// `number` with a separator (chosen by `separatorChoices`; a choice past the list is none)
    /// after each digit and each digit in a form chosen by `forms`.
    static func disguised(_ number: String, separatorChoices: [Int], limit: Int = separators.count, forms: [Int]) -> String {
        var out = ""
        for (index, digit) in number.enumerated() {
            out += form(digit, style: forms.isEmpty ? 0 : forms[index % forms.count])
            let choice = separatorChoices[index % max(1, separatorChoices.count)]
            if index < number.count - 1, choice < min(limit, separators.count) {
                out += separators[choice]
            }
        }
        return out
    }

    /// The rule written plainly, as the oracle: the digits of `text` (ASCII only, letters ending
    /// runs) hold a window of 13-19 digits with a brand's IIN, a length it issues, and Luhn.
    static func oracle(_ text: String) -> Bool {
        let runs = text.split { $0.isLetter }.map { $0.filter { $0.isASCII && $0.isNumber } }
        for run in runs.map(Array.init) where run.count >= 13 {
            for start in 0...(run.count - 13) {
                for length in 13...19 where start + length <= run.count {
                    let window = String(run[start..<(start + length)])
                    if let brand = CardBrand.detect(iin: String(window.prefix(6))), brand.allowedLengths.contains(length), Luhn.isValid(window) {
                        return true
                    }
                }
            }
        }
        return false
    }

    @Test("any card number, with any separators and any digit forms, in any text, is found, masked and refused")
    func disguisedNumbersAreFound() async {
        await propertyCheck(
            count: 2000, input: Gen.number.array(of: 19), Gen.int(in: 0...100), Gen.int(in: 0...2),
            Gen.int(in: 0...(Self.separators.count + 1)).array(of: 1...6), Gen.int(in: 0...5).array(of: 0...3),
            Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...12)
        ) { digits, issuer, length, separatorChoices, forms, around in
            let number = Self.cardNumber(digits, issuer: issuer, length: length)
            let text = Self.text(around) + " " + Self.disguised(number, separatorChoices: separatorChoices, forms: forms) + " " + Self.text(around.reversed())
            #expect(CardNumberShape.contains(text))
            let masked = CardNumberShape.masked(text)
            #expect(!CardNumberShape.contains(masked))
            #expect(masked.filter { $0.isNumber }.count == 10)
            #expect(throws: CardDataError.self) { try CardNumberShape.refuse(text, field: "description") }
        }
    }

    @Test("a card number behind leading zeros or glued to other digits is found")
    func numbersInsideLongerRunsAreFound() async {
        await propertyCheck(
            count: 1000, input: Gen.number.array(of: 19), Gen.int(in: 0...100), Gen.int(in: 0...2), Gen.number.array(of: 0...8),
            Gen.number.array(of: 0...8)
        ) { digits, issuer, length, before, after in
            let number = Self.cardNumber(digits, issuer: issuer, length: length)
            let text = "ref " + String(before) + number + String(after)
            #expect(CardNumberShape.contains(text), "\(CardNumberShape.masked(text))")
            #expect(CardNumberShape.contains("0000" + number))
        }
    }

    @Test("any text is refused exactly when the rule written plainly finds a card number in it")
    func theScannerAgreesWithThePlainRule() async {
        await propertyCheck(
            count: 3000, input: Gen.number.array(of: 10...40), Gen.int(in: 0...10).array(of: 1...6),
            Gen<Character?>.element(of: Self.textAlphabet).array(of: 0...6)
        ) { digits, separatorChoices, around in
            let text = Self.text(around) + Self.disguised(String(digits), separatorChoices: separatorChoices, limit: 8, forms: []) + Self.text(around)
            #expect(CardNumberShape.contains(text) == Self.oracle(text), "\(text)")
            #expect((CardNumberShape.masked(text) == text) == !Self.oracle(text))
        }
    }

    @Test("order numbers made of timestamps and counters carry no card brand's prefix and are not refused")
    func referencesWithTimestampsAndCountersAreNotRefused() {
        let references = (1...300).map { "ld-1763942400-1-\($0)" }
        let luhnValid = references.map { $0.filter(\.isNumber) }.filter { $0.count >= 13 && Luhn.isValid($0) }
        #expect(!luhnValid.isEmpty, "the sample must hold Luhn-valid digit strings to mean anything")
        for reference in references {
            #expect(!CardNumberShape.contains(reference), "\(reference)")
        }
        #expect(CardNumberShape.contains("ld-1763942400-4111111111111111"), "a card number after the timestamp is refused")
    }

    @Test(arguments: [
        "4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "ref:4111111111111111", "card 5555 5555 5555 4444 exp 12/30",
        "378282246310005", "3782 822463 10005", "3782-822463-10005", "qty 2 4111 1111 1111 1111", "6011111111111117",
        "4222222222222", "6011 1111 1111 1111 110", "INV4111111111111111X", "４１１１１１１１１１１１１１１１", "4111111111111111\n",
        "4242.4242.4242.4242", "4242_4242_4242_4242", "4242:4242:4242:4242", "4242--4242--4242--4242", "4242  4242  4242  4242",
        "4242/4242/4242/4242", "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242", "4242\u{200B}4242\u{200B}4242\u{200B}4242",
        "4\u{E0030}242424242424242", "⁴²⁴²⁴²⁴²⁴²⁴²⁴²⁴²", "𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐", "00004242424242424242", "41111111111111111",
        "4111-1111 1111-1111", "4111 - 1111 - 1111 - 1111", "4111.1111.1111.1111", "\u{FEFF}4242424242424242",
    ])
    func cardNumbersHoweverWrittenAreFound(_ text: String) {
        #expect(CardNumberShape.contains(text), "\(CardNumberShape.masked(text))")
    }

    @Test(arguments: [
        "", "order 1234", "4111111111111112", "4111 1111 1111 1112", "+44 7700 900123", "2026-11-23T22:00:00Z",
        "550e8400-e29b-41d4-a716-446655440000", "sc_ABCDEFGHIJKLMNOP", "411111111111", "1000000000000000001", "411111******1111",
        "4111 x 1111 y 1111 z 1111",
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
        for reference in ["4111111111111111", "4111-1111-1111-1111", "ref:5555555555554444", "4242.4242.4242.4242", "4242_4242:4242-4242"] {
            #expect(throws: CardDataError(field: "merchantReference", code: "card_number_not_allowed",
                                          message: "merchantReference looks like it contains a card number (digits separated by anything but letters count as one number); "
                                            + "card numbers are accepted only as card data (card.number, track or emv).")) {
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
