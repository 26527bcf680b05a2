import Foundation
import PropertyBased
import Testing
@testable import Vault

/// The holder name and empty details are read from an opened card without `JSONDecoder` when they
/// are in the form this build writes; whatever the form, what is read is what `JSONDecoder` reads.
@Suite struct SealedPlaintextReadingTests {
    /// Names people have, and what an attacker or an old export puts in one: quotes, backslashes,
    /// slashes, control characters, accents, other scripts, emoji.
    static let nameAlphabet = Array("aZ .-'\"\\/\n\t\u{0}\u{1F}éß漢😀,:{}[]") as [Character]

    static func secure(_ bytes: [UInt8]) throws -> SecureBytes {
        try SecureBytes(copying: bytes)
    }

    static func written(pan: String, holderName: String?) async -> [UInt8] {
        await SealedCardData.withPlaintext(pan: pan, holderName: holderName) { $0 }
    }

    @Test func aHolderNameReadsAsTheDecoderReadsItWhateverItHolds() async throws {
        await propertyCheck(
            count: 1000, input: Gen<Character?>.element(of: Self.nameAlphabet).array(of: 0...24), Gen.number.array(of: 12...19),
            Gen.int(in: 0...3)
        ) { characters, digits, shape in
            let name = shape == 0 ? nil : String(characters.compactMap { $0 })
            let plaintext = await Self.written(pan: String(digits), holderName: name)
            let read = try SealedCardHolder.read(Self.secure(plaintext))
            let decoded = try JSONDecoder().decode(SealedCardHolder.self, from: Data(plaintext))
            #expect(read.holderName == decoded.holderName)
            #expect(read.holderName == name)
        }
    }

    @Test func theCanonicalFormIsReadInPlaceAndEveryOtherFormIsLeftToTheDecoder() throws {
        func canonical(_ text: String) -> String?? {
            Array(text.utf8).withUnsafeBytes { SealedCardHolder.canonical($0) }.map(\.holderName)
        }
        #expect(canonical(#"{"holderName":"Grace Hopper","pan":"4242424242424242"}"#) == .some("Grace Hopper"))
        #expect(canonical(#"{"holderName":"","pan":"4242424242424242"}"#) == .some(""))
        #expect(canonical(#"{"pan":"4242424242424242"}"#) == .some(nil))
        // What the decoder reads: escapes, names beyond ASCII, an earlier build's order and spacing, other values.
        for other in [
            #"{"holderName":"Zoë 漢","pan":"4242424242424242"}"#, "{\"holderName\":\"Tab\there\",\"pan\":\"4242\"}",
            #"{"holderName":"O\"Brien","pan":"4242424242424242"}"#, #"{"holderName":"A\/B","pan":"4242424242424242"}"#,
            #"{"pan":"4242424242424242","holderName":"Grace"}"#, #"{"holderName": "Grace","pan":"4242424242424242"}"#,
            #"{"holderName":null,"pan":"4242424242424242"}"#, #"{"holderName":"Grace","pan":"4242424242424242"} "#,
            #"{"holderName":"Grace","pan":"42x2"}"#, #"{"holderName":"Grace","pan":""}"#, #"{"holderName":"Grace"#, "",
        ] {
            #expect(canonical(other) == nil, "\(other)")
        }
        // Bytes that are not UTF-8 are the decoder's to refuse.
        let invalid = Array(#"{"holderName":""#.utf8) + [0xC3, 0x28] + Array(#"","pan":"4242"}"#.utf8)
        #expect(invalid.withUnsafeBytes { SealedCardHolder.canonical($0) } == nil)
        #expect(throws: (any Error).self) { try SealedCardHolder.read(Self.secure(invalid)) }
        #expect(try SealedCardHolder.read(Self.secure(Array(#"{"holderName":"Zoë 漢","pan":"4242424242424242"}"#.utf8))).holderName == "Zoë 漢")
    }

    @Test func anEarlierBuildsEncoderOutputReadsTheSame() throws {
        struct Earlier: Encodable {
            var pan: String
            var holderName: String?
        }
        for name in ["Grace Hopper", "A/B", "O\"Brien", nil] as [String?] {
            let encoded = try JSONEncoder().encode(Earlier(pan: "4242424242424242", holderName: name))
            #expect(try SealedCardHolder.read(Self.secure(Array(encoded))).holderName == name)
        }
    }

    static let optionalNames = zip(Gen.int(in: 0...2), Gen<Character?>.element(of: Self.nameAlphabet).array(of: 0...10))
        .map { shape, characters in shape == 0 ? nil : String(characters.compactMap { $0 }) }

    @Test func detailsReadAsTheDecoderReadsThemWhateverTheyHold() async throws {
        await propertyCheck(
            count: 1000, input: Self.optionalNames.array(of: 7), Gen.bool, Gen.int(in: 0...3), Self.optionalNames.array(of: 6)
        ) { parts, hasCustomer, fieldCount, names in
            let customer = hasCustomer
                ? Customer(email: parts[0], mobileNumber: parts[1], city: parts[2], region: parts[3], country: parts[4], ipAddress: parts[5]) : nil
            let fields = (0..<fieldCount).map { CustomField(name: names[$0] ?? "field\($0)", value: names[$0 + 3] ?? "") }
            let details = SealedCardDetails(customer: customer, customFields: fields)
            let read = try SealedCardDetails.read(Self.secure(details.plaintext))
            #expect(read == (try JSONDecoder().decode(SealedCardDetails.self, from: Data(details.plaintext))))
            #expect(read == details)
        }
    }

    @Test func detailsOfTheCanonicalFormAreReadInPlaceAndEveryOtherFormIsLeftToTheDecoder() throws {
        func canonical(_ text: String) -> SealedCardDetails? {
            Array(text.utf8).withUnsafeBytes { SealedCardDetails.canonical($0) }
        }
        let empty = SealedCardDetails(customer: nil, customFields: [])
        #expect(empty.plaintext == Array(#"{"customFields":[]}"#.utf8))
        #expect(canonical(#"{"customFields":[]}"#) == empty)
        #expect(canonical(#"{"customFields":[],"customer":{}}"#) == SealedCardDetails(customer: Customer(), customFields: []))
        let full = SealedCardDetails(
            customer: Customer(email: "ada@example.org", mobileNumber: "+44 7700 900123", city: "London", region: nil, country: "GB", ipAddress: "::1"),
            customFields: [CustomField(name: "plan", value: "gold"), CustomField(name: "tier", value: "")])
        #expect(canonical(String(decoding: full.plaintext, as: UTF8.self)) == full)
        for other in [
            #"{"customFields":[],"customer":null}"#, #"{"customFields":[],"customer":{"city":"A","city":"B"}}"#,
            #"{"customFields":[],"customer":{"nickname":"A"}}"#, #"{"customFields":[{"name":"a","value":"b","x":"c"}]}"#,
            #"{"customFields":[{"value":"b","name":"a"}]}"#, #"{"customFields": []}"#, #"{"customFields":[],"customer":{"city":"Zoë"}}"#,
            #"{"customFields":[],"customer":{"city":"a"b"}}"#, #"{"customFields":[]"#, #"{"customFields":[]} "#, "",
        ] {
            #expect(canonical(other) == nil, "\(other)")
        }
        // The decoder reads what the fast path leaves to it, and refuses what is not JSON.
        #expect(try SealedCardDetails.read(Self.secure(Array(#"{"customFields":[],"customer":null}"#.utf8))) == empty)
        #expect(try SealedCardDetails.read(Self.secure(Array(#"{"customFields":[],"customer":{"city":"Zoë"}}"#.utf8))).customer?.city == "Zoë")
        #expect(throws: (any Error).self) { try SealedCardDetails.read(Self.secure(Array(#"{"customFields":[]"#.utf8))) }
    }
}
