import Foundation
import PropertyBased
import Testing
@testable import Vault

/// The hand-written plaintexts that get sealed read back, through `JSONDecoder`, as what was written.
@Suite struct SealedPlaintextTests {
    static let alphabet = Array("\u{0}\u{1F}\"\\/ aZz09_-.:'é€中😀\u{7F}")
    static let strings = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...12).map { String($0.map { alphabet[$0] }) }
    static let optionalStrings = zip(Gen.bool, strings).map { present, text in present ? text : nil }

    @Test func cardPlaintextReadsBackAsThePANAndHolderName() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...9).array(of: 12...19), Self.optionalStrings) { digits, holder in
            let pan = digits.map(String.init).joined()
            let decoded = await SealedCardData.withPlaintext(pan: pan, holderName: holder) { try? JSONDecoder().decode(SealedCardData.self, from: Data($0)) }
            #expect(decoded?.pan == pan)
            #expect(decoded?.holderName == holder)
            let holderOnly = await SealedCardData.withPlaintext(pan: pan, holderName: holder) { try? JSONDecoder().decode(SealedCardHolder.self, from: Data($0)) }
            #expect(holderOnly?.holderName == holder)
        }
    }

    @Test func cardPlaintextIsExact() async {
        let text = await SealedCardData.withPlaintext(pan: "4242424242424242", holderName: "A \"B\"") { String(decoding: $0, as: UTF8.self) }
        #expect(text == #"{"holderName":"A \"B\"","pan":"4242424242424242"}"#)
        let anonymous = await SealedCardData.withPlaintext(pan: "4242424242424242", holderName: nil) { String(decoding: $0, as: UTF8.self) }
        #expect(anonymous == #"{"pan":"4242424242424242"}"#)
    }

    @Test func detailsPlaintextReadsBackAsTheDetails() async {
        let customers = zip(Gen.bool, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings)
            .map { present, email, mobile, city, region, country, ip in
                present ? Customer(email: email, mobileNumber: mobile, city: city, region: region, country: country, ipAddress: ip) : nil
            }
        let fields = zip(Self.strings, Self.strings).map { CustomField(name: $0, value: $1) }.array(of: 0...4)
        await propertyCheck(count: 300, input: customers, fields) { customer, fields in
            let details = SealedCardDetails(customer: customer, customFields: fields)
            let decoded = try? JSONDecoder().decode(SealedCardDetails.self, from: Data(details.plaintext))
            #expect(decoded == details)
        }
    }

    /// Sealed details are read by the names they are stored with, pinned here, not by the API
    /// types' coding keys.
    @Test func sealedDetailsReadByTheirStoredFieldNames() throws {
        let stored = #"{"customFields":[{"name":"ref","value":"A-1"}],"customer":{"city":"Leeds","country":"GB","email":"a@example.com","ipAddress":"192.0.2.1","mobileNumber":"+44 7700 900123","region":"West Yorkshire"}}"#
        let details = try JSONDecoder().decode(SealedCardDetails.self, from: Data(stored.utf8))
        let expected = SealedCardDetails(
            customer: Customer(
                email: "a@example.com", mobileNumber: "+44 7700 900123", city: "Leeds", region: "West Yorkshire", country: "GB", ipAddress: "192.0.2.1"),
            customFields: [CustomField(name: "ref", value: "A-1")])
        #expect(details == expected)
        #expect(String(decoding: expected.plaintext, as: UTF8.self) == stored)
        let bare = try JSONDecoder().decode(SealedCardDetails.self, from: Data(#"{"customFields":[],"customer":null}"#.utf8))
        #expect(bare == SealedCardDetails(customer: nil, customFields: []))
    }
}
