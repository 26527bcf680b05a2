import Testing
@testable import Vault

@Suite struct MagneticStripeTests {
    static let track1 = "%B4111111111111111^DOE/JOHN M^30121010000000000000?"
    static let track2 = ";4111111111111111=30121010000000000000?"

    /// The LRC a reader appends, computed independently: XOR of 6-bit (track 1) or 4-bit (track 2) codes.
    static func lrc(_ track: String) -> String {
        let isTrack1 = track.hasPrefix("%")
        let base: UInt8 = isTrack1 ? 0x20 : 0x30
        let mask: UInt8 = isTrack1 ? 0x3F : 0x0F
        let value = track.utf8.reduce(UInt8(0)) { $0 ^ (($1 &- base) & mask) }
        return String(UnicodeScalar(value + base))
    }

    @Test("track 1 only: PAN, normalised name, expiry, service code")
    func track1Only() throws {
        let tracks = try MagneticStripe.parse(Self.track1)
        #expect(tracks.track1 != nil)
        #expect(tracks.track2 == nil)
        #expect(tracks.holderName == "JOHN M DOE")
        #expect(tracks.track1?.rawName == "DOE/JOHN M")
        #expect(tracks.expiry == (try CardExpiry(month: 12, year: 2030)))
        #expect(tracks.serviceCode == "101")
        #expect(tracks.pan.masked == "411111******1111")
    }

    @Test("track 2 only has no name")
    func track2Only() throws {
        let card = try CardCapture.track(Self.track2)
        #expect(card.entryMode == .track)
        #expect(card.holderName == nil)
        #expect(card.expiry.mmyy == "1230")
        #expect(card.serviceCode == "101")
        #expect(card.cvv == nil)
        #expect(card.brand == .visa)
    }

    @Test("both tracks, with and without reader framing and LRC characters", arguments: [
        "both plain", "reversed order", "MagTek header and CR", "LRC after each", "LRC and framing", "Lilitab labels",
        "CRLF between",
    ])
    func bothTracks(shape: String) throws {
        let t1 = Self.track1
        let t2 = Self.track2
        let raw = switch shape {
        case "both plain": t1 + t2
        case "reversed order": t2 + t1
        case "MagTek header and CR": "\u{02}\u{80}\u{1F}" + t1 + t2 + "\r"
        case "LRC after each": t1 + Self.lrc(t1) + t2 + Self.lrc(t2)
        case "LRC and framing": "\u{02}" + t1 + Self.lrc(t1) + t2 + Self.lrc(t2) + "\u{03}\r\n"
        case "Lilitab labels": "T1 = " + t1 + "\nT2 = " + t2 + "\n"
        default: t1 + "\r\n" + t2 + "\r\n"
        }
        let tracks = try MagneticStripe.parse(raw)
        #expect(tracks.track1 != nil)
        #expect(tracks.track2 != nil)
        #expect(tracks.holderName == "JOHN M DOE")
        #expect(tracks.pan.last4 == "1111")
        let card = try CardCapture.track(raw)
        #expect(card.holderName == "JOHN M DOE")
    }

    @Test("an LRC that happens to be a start sentinel is not mistaken for a track")
    func lrcLooksLikeSentinel() throws {
        // Vary the name and the discretionary data until track 1's LRC is ';'.
        var found: String?
        for initial in ["", "A", "B"] {
            for n in 0..<1_000 where found == nil {
                let candidate = "%B4111111111111111^DOE/JOHN M\(initial)^3012101\(n)?"
                if Self.lrc(candidate) == ";" { found = candidate }
            }
        }
        let t1 = try #require(found)
        let withTrack2 = try MagneticStripe.parse(t1 + ";" + Self.track2)
        #expect(withTrack2.track1 != nil && withTrack2.track2 != nil)
        let alone = try MagneticStripe.parse(t1 + ";\r")
        #expect(alone.track1 != nil && alone.track2 == nil)
        let noLRC = try MagneticStripe.parse(t1 + Self.track2)
        #expect(noLRC.track2 != nil)
    }

    @Test("the sample name LASTNAME/FIRSTNAME I reads FIRSTNAME I LASTNAME, with spaced Amex digits")
    func seedShape() throws {
        let raw = "T1 = %B3782 822463 10005^LASTNAME/FIRSTNAME I^3009^1111111111111111111?"
        let card = try CardCapture.track(raw)
        #expect(card.holderName == "FIRSTNAME I LASTNAME")
        #expect(card.brand == .amex)
        #expect(card.expiry.mmyy == "0930")
        #expect(card.serviceCode == nil)
    }

    /// The Lilitab sample swipe's track 1, 79 characters as the reader delivers it (LRC stripped),
    /// with a Luhn-valid Amex number of the same shape in place of the sample's number.
    static let seedTrack1 = "%B378282246310005^LASTNAME/FIRSTNAME I^1309^" + String(repeating: "1", count: 34) + "?"

    @Test("the sample swipe's 79-character track 1 (LRC stripped) is accepted, alone and with its LRC")
    func seedTrack1AsDelivered() throws {
        #expect(Self.seedTrack1.count == 79)
        for raw in [Self.seedTrack1, "T1 = " + Self.seedTrack1 + "\n", Self.seedTrack1 + Self.lrc(Self.seedTrack1)] {
            let tracks = try MagneticStripe.parse(raw)
            #expect(tracks.holderName == "FIRSTNAME I LASTNAME")
            #expect(tracks.pan.masked == "378282*****0005")
            #expect(tracks.expiry == (try CardExpiry(month: 9, year: 2013)))
        }
    }

    @Test("a track 2 of 40 characters with its sentinels is accepted")
    func fortyCharacterTrack2() throws {
        let track2 = ";4111111111111111=3012101" + String(repeating: "0", count: 14) + "?"
        #expect(track2.count == 40)
        #expect(try MagneticStripe.parse(track2).pan.last4 == "1111")
    }

    @Test("name normalisation", arguments: [
        ("LASTNAME/FIRSTNAME I", "FIRSTNAME I LASTNAME"), ("DOE/JOHN", "JOHN DOE"), ("DOE/JOHN M.MR", "MR JOHN M DOE"),
        ("DOE/JOHN.", "JOHN DOE"), ("DOE/", "DOE"), ("/JOHN", "JOHN"), ("/", nil), ("   ", nil), ("", nil),
        ("  DOE  /  JANE   Q  ", "JANE Q DOE"), ("CARDHOLDER", "CARDHOLDER"), ("VAN DER BERG/ANNA", "ANNA VAN DER BERG"),
        ("O'NEIL-SMITH/MARY", "MARY O'NEIL-SMITH"), ("A/B/C", "B/C A"),
    ] as [(String, String?)])
    func nameNormalisation(raw: String, expected: String?) {
        #expect(CardholderName.normalized(fromCardFormat: raw) == expected)
    }

    @Test("a blank track 1 name gives no holder name")
    func blankName() throws {
        let tracks = try MagneticStripe.parse("%B4111111111111111^ /                        ^3012101?")
        #expect(tracks.holderName == nil)
    }

    @Test("a read error on one track falls back to the other and is recorded")
    func oneTrackReadError() throws {
        let track1Bad = try MagneticStripe.parse("%E?" + Self.track2)
        #expect(track1Bad.track1ReadError)
        #expect(!track1Bad.track2ReadError)
        #expect(track1Bad.track2 != nil)
        let track2Bad = try MagneticStripe.parse(Self.track1 + ";E?")
        #expect(track2Bad.track2ReadError)
        #expect(track2Bad.holderName == "JOHN M DOE")
    }

    @Test("read errors on every track are track_read_error", arguments: [
        "%E?;E?", "%E?", ";E?", "\u{02}\u{81}%E?;E?\r", "%E?\r\n;E?\r\n",
    ])
    func readErrors(raw: String) {
        expectCardDataError(field: "track", code: "track_read_error") { () throws(CardDataError) in
            try CardCapture.track(raw)
        }
    }

    @Test("a third ';' segment is track 3 and ignored")
    func track3Ignored() throws {
        let tracks = try MagneticStripe.parse(Self.track1 + Self.track2 + ";011234567890123445=724724100000000000030300?")
        #expect(tracks.track2 != nil)
        let unterminated = try MagneticStripe.parse(Self.track2 + ";0112345")
        #expect(unterminated.track2 != nil)
    }

    static let invalid: [SecretInputVector] = [
        SecretInputVector("empty", "", field: "track", code: "missing"),
        SecretInputVector("white space", " \r\n", field: "track", code: "missing"),
        SecretInputVector("garbage", "hello world", field: "track", code: "invalid_track"),
        SecretInputVector("binary garbage", "\u{00}\u{01}\u{FFFD}\u{7F}", field: "track", code: "invalid_track"),
        SecretInputVector("lone sentinel", "%", field: "track", code: "invalid_track"),
        SecretInputVector("lone track 2 sentinel", ";", field: "track", code: "invalid_track"),
        SecretInputVector("empty track 1", "%?", field: "track", code: "invalid_track"),
        SecretInputVector("empty track 2", ";?", field: "track", code: "invalid_track"),
        SecretInputVector("no end sentinel", "%B4111111111111111^DOE/JOHN^3012101", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("format code A", "%A4111111111111111^DOE/JOHN^3012101?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("one separator", "%B4111111111111111^DOE/JOHN 3012101?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("no expiry in track 1", "%B4111111111111111^DOE/JOHN^?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("short expiry in track 1", "%B4111111111111111^DOE/JOHN^301?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("lowercase in track 1", "%B4111111111111111^doe/john^3012101?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("letters in track 1 PAN", "%B41111111X1111111^DOE/JOHN^3012101?", field: "track",
                          code: "invalid_track", secrets: ["41111111X1111111"]),
        SecretInputVector("track 1 too long", "%B4111111111111111^DOE/JOHN^3012101" + String(repeating: "0", count: 60) + "?",
                          field: "track", code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("track 1 of 80 characters", "%B378282246310005^LASTNAME/FIRSTNAME I^1309^" + String(repeating: "1", count: 35) + "?",
                          field: "track", code: "invalid_track", secrets: ["378282246310005"]),
        SecretInputVector("track 2 of 41 characters", ";4111111111111111=3012101" + String(repeating: "0", count: 15) + "?",
                          field: "track", code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("no separator in track 2", ";4111111111111111?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("sample dummy track 2", ";1111222233334444?", field: "track",
                          code: "invalid_track", secrets: ["1111222233334444"]),
        SecretInputVector("no expiry in track 2", ";4111111111111111=?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("expiry absent marker in track 2", ";4111111111111111==101?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("letters in track 2", ";4111111111111111D3012101?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("track 2 too long", ";4111111111111111=3012101" + String(repeating: "0", count: 30) + "?",
                          field: "track", code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("month 13 in track 2", ";4111111111111111=3013101?", field: "track",
                          code: "invalid_expiry", secrets: ["4111111111111111"]),
        SecretInputVector("month 00 in track 1", "%B4111111111111111^DOE/JOHN^3000101?", field: "track",
                          code: "invalid_expiry", secrets: ["4111111111111111"]),
        SecretInputVector("luhn in track 2", ";4111111111111112=3012101?", field: "track",
                          code: "luhn_check_failed", secrets: ["4111111111111112"]),
        SecretInputVector("sample track 1 (fails Luhn)", "%B370012345678999^LASTNAME/FIRSTNAME I^1309^1111?",
                          field: "track", code: "luhn_check_failed", secrets: ["370012345678999"]),
        SecretInputVector("unknown brand in track 2", ";1000000000000008=3012101?", field: "track",
                          code: "unknown_brand", secrets: ["1000000000000008"]),
        SecretInputVector("tracks disagree on PAN", track1 + ";5555555555554444=30121010000000000000?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111", "5555555555554444"]),
        SecretInputVector("tracks disagree on expiry", track1 + ";4111111111111111=31121010000000000000?", field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("two track 1s", track1 + track1, field: "track", code: "invalid_track",
                          secrets: ["4111111111111111"]),
        SecretInputVector("good track 2, malformed track 1", "%B4111^?" + track2, field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("too long", String(repeating: "x", count: 5_000) + track2, field: "track",
                          code: "invalid_track", secrets: ["4111111111111111"]),
        SecretInputVector("only a reader error marker in text", "E", field: "track", code: "invalid_track"),
    ]

    @Test("malformed track data fails with a reason and never quotes the data", arguments: invalid)
    func rejectsMalformed(vector: SecretInputVector) {
        let error = expectCardDataError(field: vector.field, code: vector.code) { () throws(CardDataError) in
            try CardCapture.track(vector.input)
        }
        expectNoSecrets(in: error, vector.secrets + [vector.input])
    }
}
