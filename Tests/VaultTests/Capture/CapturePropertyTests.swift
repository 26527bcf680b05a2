import PropertyBased
import Testing
@testable import Vault

/// Properties over generated input: parsers never trap, generated card numbers behave.
@Suite struct CapturePropertyTests {
    static let trackAlphabet = Array("%;?^=/ BEDF0123456789\r\n\u{2}") as [Character]
    static let hexAlphabet = Array("0123456789ABCDEFabcdef") as [Character]
    static let tlvAlphabet = Array("0123456789ABCDEF5A5F24205770778081828384FF00") as [Character]

    static let validTracks = [
        "%B4111111111111111^DOE/JOHN M^30121010000000000000?;4111111111111111=30121010000000000000?",
        "\u{2}%B378282246310005^LASTNAME/FIRSTNAME I^3009^1111111111?\r",
        ";5555555555554444=3012201?",
        "%E?;E?",
    ]

    static let validEMV = [
        "700E5A0841111111111111115F2403301231",
        "77135711378282246310005D30122010000F",
        "70085A0841111111111111115F2403301231" + "5F200B" + "444F452F4A4F484E204D20",
    ]

    static func mutate(_ text: String, position: Int, operation: Int, character: Character) -> String {
        var characters = Array(text)
        let index = characters.isEmpty ? 0 : position % (characters.count + 1)
        switch operation % 3 {
        case 0: characters.insert(character, at: index)
        case 1: if index < characters.count { characters.remove(at: index) }
        default: if index < characters.count { characters[index] = character }
        }
        return String(characters)
    }

    static func element(_ alphabet: [Character]) -> Generator<Character, some Sequence & SendableMetatype> {
        Gen<Character?>.element(of: alphabet).map { $0 ?? "0" }
    }

    @Test("any ASCII or Latin-1 string fed to the track parser gives a value or a CardDataError")
    func trackNeverTraps() async {
        await propertyCheck(count: 500, input: Gen.ascii.string(of: 0...200)) { raw in
            _ = try? MagneticStripe.parse(raw)
            _ = try? CardCapture.track(raw)
        }
        await propertyCheck(count: 500, input: Gen.latin1.string(of: 0...200)) { raw in
            _ = try? CardCapture.track(raw)
        }
    }

    @Test("strings of track characters and mutated real swipes never trap the track parser")
    func trackLikeNeverTraps() async {
        await propertyCheck(count: 1000, input: Self.element(Self.trackAlphabet).string(of: 0...120)) { raw in
            _ = try? CardCapture.track(raw)
        }
        await propertyCheck(
            count: 1000, input: Gen.int(in: 0...3), Gen.int(in: 0...500), Gen.int(in: 0...2), Gen.ascii,
            Gen.int(in: 1...4)
        ) { base, position, operation, character, rounds in
            var raw = Self.validTracks[base]
            for round in 0..<rounds {
                raw = Self.mutate(raw, position: position &* (round + 7), operation: operation + round, character: character)
            }
            _ = try? CardCapture.track(raw)
        }
    }

    @Test("arbitrary Unicode never traps the track or EMV parsers")
    func unicodeNeverTraps() async {
        let scalars = Gen<Character>.character(in: "\u{0}"..."\u{D7FF}").string(of: 0...80)
        await propertyCheck(count: 500, input: scalars) { raw in
            _ = try? CardCapture.track(raw)
            _ = try? CardCapture.emv(raw)
            _ = try? CardCapture.keyed(number: raw, expiryDate: raw, holderName: raw, cvv: raw, cardType: raw)
            _ = try? Customer(email: raw, mobileNumber: raw, city: raw, region: raw, country: raw, ipAddress: raw).validate()
            _ = try? MerchantReference(validating: raw)
            _ = try? Currency(code: raw)
        }
    }

    @Test("any string and random hex fed to BERTLV and CardCapture.emv gives a value or a CardDataError")
    func emvNeverTraps() async {
        await propertyCheck(count: 500, input: Gen.ascii.string(of: 0...200)) { raw in
            _ = try? BERTLV.parse(hex: raw)
            _ = try? CardCapture.emv(raw)
        }
        await propertyCheck(count: 1000, input: Self.element(Self.hexAlphabet).string(of: 0...300)) { hex in
            _ = try? BERTLV.parse(hex: hex)
            _ = try? CardCapture.emv(hex)
        }
        await propertyCheck(count: 1000, input: Self.element(Self.tlvAlphabet).string(of: 0...200)) { hex in
            _ = try? CardCapture.emv(hex)
        }
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...200)) { bytes in
            if let elements = try? BERTLV.parse(bytes: bytes) {
                _ = try? EMVCardData(elements: elements)
            }
        }
    }

    @Test("mutated real EMV data never traps")
    func mutatedEMVNeverTraps() async {
        await propertyCheck(
            count: 1000, input: Gen.int(in: 0...2), Gen.int(in: 0...500), Gen.int(in: 0...2),
            Self.element(Self.hexAlphabet), Gen.int(in: 1...4)
        ) { base, position, operation, character, rounds in
            var hex = Self.validEMV[base]
            for round in 0..<rounds {
                hex = Self.mutate(hex, position: position &* (round + 3), operation: operation + round, character: character)
            }
            _ = try? CardCapture.emv(hex)
        }
    }

    /// Builds a Luhn-valid number of `brand` from generated choices.
    static func generatedNumber(brand: CardBrand, prefixChoice: Int, lengthChoice: Int, digits: [Character]) -> String {
        let prefixes = CaptureFixtures.prefixes[brand] ?? ["4"]
        let prefix = prefixes[prefixChoice % prefixes.count]
        let lengths = brand.allowedLengths.sorted()
        let length = lengths[lengthChoice % lengths.count]
        return CaptureFixtures.withCheckDigit(prefix + String(digits.prefix(length - 1 - prefix.count)))
    }

    @Test("Luhn-valid generated numbers of each brand are accepted as that brand; one changed digit is rejected")
    func generatedNumbers() async {
        await propertyCheck(
            count: 1000, input: Gen<CardBrand>.case, Gen.int(in: 0...99), Gen.int(in: 0...99), Gen.number.array(of: 19),
            Gen.int(in: 0...18), Gen.int(in: 1...9)
        ) { brand, prefixChoice, lengthChoice, digits, position, delta in
            let number = Self.generatedNumber(brand: brand, prefixChoice: prefixChoice, lengthChoice: lengthChoice, digits: digits)
            guard let pan = expectSuccess({ () throws(CardDataError) in try PrimaryAccountNumber(validating: number) }) else {
                return
            }
            #expect(pan.brand == brand)
            expectSameSecret(pan.digits, number, "digits")

            var changed = Array(number)
            let index = position % changed.count
            let digit = changed[index].wholeNumberValue ?? 0
            changed[index] = Character(String((digit + delta) % 10))
            let error = expectCardDataError(field: "card.number", code: "luhn_check_failed") { () throws(CardDataError) in
                try PrimaryAccountNumber(validating: String(changed))
            }
            expectNoSecrets(in: error, [number, String(changed)])
        }
    }

    @Test("masked never contains the middle digits")
    func maskedHidesMiddle() async {
        await propertyCheck(
            count: 1000, input: Gen<CardBrand>.case, Gen.int(in: 0...99), Gen.int(in: 0...99), Gen.number.array(of: 19)
        ) { brand, prefixChoice, lengthChoice, digits in
            let number = Self.generatedNumber(brand: brand, prefixChoice: prefixChoice, lengthChoice: lengthChoice, digits: digits)
            guard let pan = try? PrimaryAccountNumber(validating: number) else {
                Issue.record("a generated \(brand) number was rejected")
                return
            }
            let masked = pan.masked
            #expect(masked.count == number.count)
            #expect(masked.dropFirst(6).dropLast(4).allSatisfy { $0 == "*" })
            let sameEnds = masked.prefix(6) == number.prefix(6) && masked.suffix(4) == number.suffix(4)
            #expect(sameEnds)
            let shown = pan.description + pan.debugDescription + String(describing: pan) + String(reflecting: pan)
            let leaks = shown.contains(number)
            #expect(!leaks, "the masked form shows hidden digits")
        }
    }

    @Test("errors for random digit strings never quote them")
    func randomNumbersNotQuoted() async {
        await propertyCheck(count: 1000, input: Gen.number.string(of: 0...24)) { number in
            do throws(CardDataError) {
                _ = try PrimaryAccountNumber(validating: number)
            } catch {
                expectNoSecrets(in: error, [number])
            }
        }
    }
}
