/// A card's expiry month. A card is valid through the last day of that month.
///
/// Years are four digits, 2000-2099: two-digit card years (MMYY, YYMM) mean 20YY.
/// Encodes as `{"year": 2030, "month": 12}`; decoding validates the same way as the initialisers.
public struct CardExpiry: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The four-digit year, 2000-2099.
    public let year: Int
    /// The month, 1-12.
    public let month: Int

    /// The years a two-digit card year can denote.
    public static let validYears = 2000...2099

    /// Creates an expiry from a month and a four-digit year.
    /// - Throws: ``CardDataError`` `invalid_expiry` on field `card.expiryDate` when the month
    ///   is not 1-12 or the year not 2000-2099.
    public init(month: Int, year: Int) throws(CardDataError) {
        try self.init(month: month, year: year, field: "card.expiryDate")
    }

    /// Parses the API's `MMYY` form, e.g. `1230` for December 2030.
    /// - Throws: ``CardDataError`` `missing` when empty, `invalid_expiry` unless exactly four
    ///   digits forming a real month.
    public init(mmyy: String, field: String = "card.expiryDate") throws(CardDataError) {
        let bytes = Array(mmyy.utf8.prefix(5))
        guard !bytes.isEmpty else {
            throw CardDataError(field: field, code: CardDataError.Code.missing,
                                message: "The expiry date is missing.")
        }
        guard bytes.count == 4, let month = ASCII.integer(bytes[0..<2]), let yy = ASCII.integer(bytes[2..<4]) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidExpiry,
                                message: "The expiry date must be four digits, MMYY.")
        }
        try self.init(month: month, year: 2000 + yy, field: field)
    }

    /// Parses the `YYMM` form used on magnetic stripes and in EMV data.
    /// - Throws: ``CardDataError`` `invalid_expiry` on `field` unless exactly four digits
    ///   forming a real month.
    public init(yymm: String, field: String) throws(CardDataError) {
        let bytes = Array(yymm.utf8.prefix(5))
        guard bytes.count == 4, let yy = ASCII.integer(bytes[0..<2]), let month = ASCII.integer(bytes[2..<4]) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidExpiry,
                                message: "The expiry date must be four digits, YYMM.")
        }
        try self.init(month: month, year: 2000 + yy, field: field)
    }

    init(month: Int, year: Int, field: String) throws(CardDataError) {
        guard (1...12).contains(month) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidExpiry,
                                message: "The expiry month must be 01 to 12.")
        }
        guard Self.validYears.contains(year) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidExpiry,
                                message: "The expiry year must be 2000 to 2099.")
        }
        self.month = month
        self.year = year
    }

    /// The API form, `MMYY`.
    public var mmyy: String { ASCII.twoDigits(month) + ASCII.twoDigits(year) }

    /// `MM/YYYY`, for people.
    public var description: String { ASCII.twoDigits(month) + "/" + String(year) }

    /// `true` once the expiry month is over: a card expiring in this month is still valid.
    /// - Parameters:
    ///   - currentYear: Today's four-digit year in the merchant's time zone.
    ///   - currentMonth: Today's month (1-12) in the merchant's time zone.
    public func isExpired(currentYear: Int, currentMonth: Int) -> Bool {
        (year, month) < (currentYear, currentMonth)
    }

    /// `true` when the card is expired on `day`: the expiry month ended before `day`'s month. A
    /// card is good through the last day of its expiry month, so a charge, a schedule step or a
    /// registration on that day still goes ahead.
    public func isExpired(on day: CivilDate) -> Bool {
        let (dayYear, dayMonth, _) = day.components
        return isExpired(currentYear: dayYear, currentMonth: dayMonth)
    }

    /// Orders by year, then month.
    public static func < (lhs: CardExpiry, rhs: CardExpiry) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }

    private enum CodingKeys: String, CodingKey { case year, month }

    /// Decodes `{"year", "month"}` and validates it; throws ``CardDataError`` for an impossible month.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(month: container.decode(Int.self, forKey: .month),
                      year: container.decode(Int.self, forKey: .year))
    }

    /// Encodes `{"year", "month"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(year, forKey: .year)
        try container.encode(month, forKey: .month)
    }
}

extension CardExpiry {
    /// Validates the expiry as keyed or read and also checks it is not in the past.
    ///
    /// `CardCapture` has no clock; the caller passes today's year and month in the merchant's time zone.
    /// - Throws: ``CardDataError`` `expired` on `field` when ``isExpired(currentYear:currentMonth:)``.
    public func validateNotExpired(currentYear: Int, currentMonth: Int,
                                   field: String = "card.expiryDate") throws(CardDataError) {
        if isExpired(currentYear: currentYear, currentMonth: currentMonth) {
            throw CardDataError(field: field, code: CardDataError.Code.expired,
                                message: "The card has expired.")
        }
    }
}
