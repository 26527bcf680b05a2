import Testing
@testable import Vault

@Suite struct EMVCaptureTests {
    static let pan = TLV.encode("5A", "4111111111111111")
    static let expiry = TLV.encode("5F24", "301231")
    static let name = TLV.encode("5F20", TLV.ascii("DOE/JOHN M  "))
    static let track2 = TLV.encode("57", "4111111111111111D3012101123456789F")

    @Test("READ RECORD template 70 with 5A, 5F24 and 5F20")
    func template70() throws {
        let card = try CardCapture.emv(TLV.encode("70", Self.pan + Self.expiry + Self.name))
        #expect(card.entryMode == .emv)
        #expect(card.brand == .visa)
        #expect(card.pan.masked == "411111******1111")
        #expect(card.expiry == (try CardExpiry(month: 12, year: 2030)))
        #expect(card.holderName == "JOHN M DOE")
        #expect(card.cvv == nil)
        #expect(card.serviceCode == nil)
    }

    @Test("GPO response template 77 with only 57 track 2 equivalent data")
    func template77Track2Equivalent() throws {
        let card = try CardCapture.emv(TLV.encode("77", TLV.encode("82", "1980") + Self.track2))
        #expect(card.pan.last4 == "1111")
        #expect(card.expiry.mmyy == "1230")
        #expect(card.serviceCode == "101")
        #expect(card.holderName == nil)
    }

    @Test("5A with F padding (15-digit Amex, 19-digit Visa)")
    func panPadding() throws {
        let amex = try CardCapture.emv(TLV.encode("5A", "378282246310005F") + Self.expiry)
        #expect(amex.brand == .amex)
        #expect(amex.pan.masked == "378282*****0005")
        let visa19 = try CardCapture.emv(TLV.encode("5A", "4111111111111111110F") + Self.expiry)
        #expect(visa19.pan.digits.count == 19)
        let padded = try CardCapture.emv(TLV.encode("5A", "4111111111111111FFFF") + Self.expiry)
        #expect(padded.pan.digits.count == 16)
    }

    @Test("57 with odd digit count and F padding; agrees with 5A and 5F24")
    func track2AgreesWithTags() throws {
        let amex57 = TLV.encode("57", "378282246310005D30122010000F")
        let amex = try CardCapture.emv(TLV.encode("70", TLV.encode("5A", "378282246310005F") + amex57 + Self.expiry))
        #expect(amex.brand == .amex)
        #expect(amex.serviceCode == "201")
    }

    @Test("the data may be spread over several templates, with other tags around")
    func severalTemplates() throws {
        let hex = TLV.encode("6F", TLV.encode("84", "A0000000031010")) + TLV.encode("77", TLV.encode("9F36", "0001"))
            + "0000" + TLV.encode("70", TLV.encode("9F4B", String(repeating: "AB", count: 140)) + Self.pan)
            + TLV.encode("70", Self.expiry + Self.name)
        let card = try CardCapture.emv(hex)
        #expect(card.holderName == "JOHN M DOE")
        #expect(card.expiry.year == 2030)
    }

    @Test("a blank 5F20 gives no holder name")
    func blankName() throws {
        let card = try CardCapture.emv(Self.pan + Self.expiry + TLV.encode("5F20", TLV.ascii(" /")))
        #expect(card.holderName == nil)
    }

    static let invalid: [SecretInputVector] = [
        SecretInputVector("empty", "", field: "emv", code: "missing"),
        SecretInputVector("only padding", "0000", field: "emv", code: "missing"),
        SecretInputVector("odd length", pan + "0", field: "emv", code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("non-hex", pan + "ZZ", field: "emv", code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("truncated", "5A084111111111", field: "emv", code: "invalid_emv", secrets: ["4111111111"]),
        SecretInputVector("indefinite length template", "7080" + pan + expiry + "0000", field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("no PAN", expiry + name, field: "emv", code: "invalid_emv"),
        SecretInputVector("no expiry", pan + name, field: "emv", code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("F inside 5A", TLV.encode("5A", "41111111F1111111") + expiry, field: "emv",
                          code: "invalid_emv", secrets: ["41111111F1111111"]),
        SecretInputVector("letter nibble in 5A", TLV.encode("5A", "4111111111111A11") + expiry, field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111A11"]),
        SecretInputVector("all-F 5A", TLV.encode("5A", "FFFF") + expiry, field: "emv", code: "invalid_emv"),
        SecretInputVector("5A and 57 disagree", TLV.encode("5A", "5555555555554444") + track2, field: "emv",
                          code: "invalid_emv", secrets: ["5555555555554444", "4111111111111111"]),
        SecretInputVector("5F24 and 57 disagree", TLV.encode("5F24", "311231") + track2, field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("5F24 month 13", pan + TLV.encode("5F24", "301331"), field: "emv",
                          code: "invalid_expiry", secrets: ["4111111111111111"]),
        SecretInputVector("5F24 day 00", pan + TLV.encode("5F24", "301200"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("5F24 not BCD", pan + TLV.encode("5F24", "3A1231"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("5F24 two bytes", pan + TLV.encode("5F24", "3012"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("5F20 not printable", pan + expiry + TLV.encode("5F20", "444F450A4A"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("57 without separator", TLV.encode("57", "41111111111111113012101F") + expiry, field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("57 without expiry", TLV.encode("57", "4111111111111111D30F"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("57 with a letter", TLV.encode("57", "4111111111111111D3012A01"), field: "emv",
                          code: "invalid_emv", secrets: ["4111111111111111"]),
        SecretInputVector("57 month 00", TLV.encode("57", "4111111111111111D3000101"), field: "emv",
                          code: "invalid_expiry", secrets: ["4111111111111111"]),
        SecretInputVector("Luhn failure in 5A", TLV.encode("5A", "4111111111111112") + expiry, field: "emv",
                          code: "luhn_check_failed", secrets: ["4111111111111112"]),
        SecretInputVector("empty 57", TLV.encode("5A", "378282246310005F") + TLV.encode("57", "") + expiry,
                          field: "emv", code: "invalid_emv", secrets: ["378282246310005"]),
        SecretInputVector("nesting too deep", "700E700C700A70087006700470027000", field: "emv", code: "invalid_emv"),
    ]

    @Test("malformed or incomplete EMV data fails with a reason and never quotes the data", arguments: invalid)
    func rejectsMalformed(vector: SecretInputVector) {
        let error = expectCardDataError(field: vector.field, code: vector.code) { () throws(CardDataError) in
            try CardCapture.emv(vector.input)
        }
        expectNoSecrets(in: error, vector.secrets + [vector.input])
    }
}
