extension MagneticStripe {
    /// Track 1 (IATA, format code `B`): PAN, name, expiry, service code.
    public struct Track1: Sendable, Equatable {
        /// Longest track 1 content between the sentinels: 77, so a track of 79 characters with its
        /// sentinels passes. ISO/IEC 7813's 79 counts the LRC too, but readers strip the LRC and
        /// deliver up to 79 characters without it (the Lilitab sample swipe is such a track).
        public static let maximumContentLength = 77

        /// The validated PAN (Amex track 1 may space its digits; the spaces are removed).
        public let pan: PrimaryAccountNumber
        /// The name as encoded, e.g. `DOE/JOHN M`; `nil` when blank.
        public let rawName: String?
        /// The name in reading order, e.g. `JOHN M DOE`; `nil` when blank.
        public let holderName: String?
        /// The expiry (YYMM on the stripe).
        public let expiry: CardExpiry
        /// The three-digit service code, when encoded.
        public let serviceCode: String?

        /// Parses the bytes between `%` and `?`.
        init(content: ArraySlice<UInt8>) throws(CardDataError) {
            guard content.count <= Self.maximumContentLength else {
                throw MagneticStripe.invalid("Track 1 is too long.")
            }
            guard content.allSatisfy({ (0x20...0x5F).contains($0) && $0 != 0x25 && $0 != 0x3F }) else {
                throw MagneticStripe.invalid("Track 1 contains characters outside its character set.")
            }
            guard content.first == 0x42 else {
                throw MagneticStripe.invalid("Track 1 is not a bank card track (format code B).")
            }
            let fields = content.dropFirst().split(separator: 0x5E, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                throw MagneticStripe.invalid("Track 1 lacks its field separators.")
            }
            let panBytes = fields[0]
            guard panBytes.allSatisfy({ ASCII.isDigit($0) || $0 == ASCII.space }) else {
                throw MagneticStripe.invalid("Track 1 holds a card number with characters other than digits.")
            }
            self.pan = try PrimaryAccountNumber(validating: ASCII.string(panBytes), field: MagneticStripe.field)
            let name = ASCII.string(fields[1])
            self.rawName = CardholderName.tidy(name)
            self.holderName = CardholderName.normalized(fromCardFormat: name)
            let rest = fields[2]
            guard rest.count >= 4 else {
                throw MagneticStripe.invalid("Track 1 has no expiry date.")
            }
            self.expiry = try CardExpiry(yymm: ASCII.string(rest.prefix(4)), field: MagneticStripe.field)
            self.serviceCode = MagneticStripe.serviceCode(in: rest.dropFirst(4))
        }
    }

    /// Track 2 (ABA): PAN, expiry, service code.
    public struct Track2: Sendable, Equatable {
        /// Longest track 2 content between the sentinels: 38, so a track of 40 characters with its
        /// sentinels passes (the reader-delivered length, LRC stripped, as for track 1).
        public static let maximumContentLength = 38

        /// The validated PAN.
        public let pan: PrimaryAccountNumber
        /// The expiry (YYMM on the stripe).
        public let expiry: CardExpiry
        /// The three-digit service code, when encoded.
        public let serviceCode: String?

        /// Parses the bytes between `;` and `?`.
        init(content: ArraySlice<UInt8>) throws(CardDataError) {
            guard content.count <= Self.maximumContentLength else {
                throw MagneticStripe.invalid("Track 2 is too long.")
            }
            guard content.allSatisfy({ ASCII.isDigit($0) || $0 == 0x3D }) else {
                throw MagneticStripe.invalid("Track 2 contains characters other than digits and '='.")
            }
            guard let separator = content.firstIndex(of: 0x3D) else {
                throw MagneticStripe.invalid("Track 2 lacks its field separator.")
            }
            self.pan = try PrimaryAccountNumber(validating: ASCII.string(content[..<separator]),
                                                field: MagneticStripe.field)
            let rest = content[(separator + 1)...]
            let expiry = rest.prefix(4)
            guard expiry.count == 4, expiry.allSatisfy(ASCII.isDigit) else {
                throw MagneticStripe.invalid("Track 2 has no expiry date.")
            }
            self.expiry = try CardExpiry(yymm: ASCII.string(expiry), field: MagneticStripe.field)
            self.serviceCode = MagneticStripe.serviceCode(in: rest.dropFirst(4))
        }
    }

    /// The tracks of one swipe, with the card data they agree on.
    public struct Tracks: Sendable, Equatable {
        /// Track 1, unless absent or unreadable.
        public let track1: Track1?
        /// Track 2, unless absent or unreadable.
        public let track2: Track2?
        /// The reader sent `%E?`.
        public let track1ReadError: Bool
        /// The reader sent `;E?`.
        public let track2ReadError: Bool
        /// The PAN (both tracks agree when both are present).
        public let pan: PrimaryAccountNumber
        /// The expiry (both tracks agree when both are present).
        public let expiry: CardExpiry
        /// The holder name from track 1, in reading order.
        public let holderName: String?
        /// The service code, from track 2 if present, else track 1.
        public let serviceCode: String?

        /// Combines parsed tracks; at least one must be present and, if both are, they must agree.
        /// - Throws: ``CardDataError`` `invalid_track` when both are absent or they disagree.
        public init(track1: Track1?, track2: Track2?, track1ReadError: Bool = false,
                    track2ReadError: Bool = false) throws(CardDataError) {
            if let track1, let track2, track1.pan != track2.pan || track1.expiry != track2.expiry {
                throw MagneticStripe.invalid("Track 1 and track 2 disagree on the card number or expiry.")
            }
            if let track2 {
                self.pan = track2.pan
                self.expiry = track2.expiry
            } else if let track1 {
                self.pan = track1.pan
                self.expiry = track1.expiry
            } else {
                throw MagneticStripe.invalid("No magnetic-stripe track was found.")
            }
            self.track1 = track1
            self.track2 = track2
            self.track1ReadError = track1ReadError
            self.track2ReadError = track2ReadError
            self.holderName = track1?.holderName
            self.serviceCode = track2?.serviceCode ?? track1?.serviceCode
        }
    }

    /// The first three bytes when they are all digits.
    static func serviceCode(in bytes: ArraySlice<UInt8>) -> String? {
        let code = bytes.prefix(3)
        guard code.count == 3, code.allSatisfy(ASCII.isDigit) else { return nil }
        return ASCII.string(code)
    }
}
