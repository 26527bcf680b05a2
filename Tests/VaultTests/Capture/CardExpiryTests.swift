import Foundation
import Testing
@testable import Vault

@Suite struct CardExpiryTests {
    @Test("MMYY parses to month and four-digit year", arguments: [
        ("0126", 1, 2026), ("1230", 12, 2030), ("0600", 6, 2000), ("1299", 12, 2099),
    ])
    func parsesMMYY(text: String, month: Int, year: Int) throws {
        let expiry = try CardExpiry(mmyy: text)
        #expect(expiry.month == month)
        #expect(expiry.year == year)
        #expect(expiry.mmyy == text)
    }

    @Test("YYMM parses the stripe and chip order")
    func parsesYYMM() throws {
        let expiry = try CardExpiry(yymm: "3012", field: "track")
        #expect(expiry == (try CardExpiry(month: 12, year: 2030)))
        #expect(expiry.mmyy == "1230")
        #expect(expiry.description == "12/2030")
    }

    @Test("impossible months and malformed text are invalid_expiry", arguments: [
        "0026", "1326", "9926", "126", "01/26", "01266", "ab26", "01 6", "１２２６", "-126",
    ])
    func rejectsBadMMYY(text: String) {
        expectCardDataError(field: "card.expiryDate", code: "invalid_expiry") { () throws(CardDataError) in
            try CardExpiry(mmyy: text)
        }
    }

    @Test("an empty expiry is missing")
    func emptyIsMissing() {
        expectCardDataError(field: "card.expiryDate", code: "missing") { () throws(CardDataError) in
            try CardExpiry(mmyy: "")
        }
    }

    @Test("YYMM errors name the given field", arguments: ["2600", "2613", "26", "2a01"])
    func rejectsBadYYMM(text: String) {
        expectCardDataError(field: "emv", code: "invalid_expiry") { () throws(CardDataError) in
            try CardExpiry(yymm: text, field: "emv")
        }
    }

    @Test("month and year are range-checked", arguments: [(0, 2030), (13, 2030), (-1, 2030), (6, 1999), (6, 2100), (6, Int.max)])
    func rangeChecked(month: Int, year: Int) {
        expectCardDataError(field: "card.expiryDate", code: "invalid_expiry") { () throws(CardDataError) in
            try CardExpiry(month: month, year: year)
        }
    }

    @Test("valid through the end of the expiry month", arguments: [
        // (expiry month, expiry year, expired as of June 2026?)
        (6, 2026, false), (7, 2026, false), (1, 2027, false), (5, 2026, true), (12, 2025, true), (12, 2099, false),
    ])
    func expiredAtTheEndOfItsMonth(month: Int, year: Int, expired: Bool) throws {
        let expiry = try CardExpiry(month: month, year: year)
        #expect(expiry.isExpired(currentYear: CaptureFixtures.currentYear, currentMonth: CaptureFixtures.currentMonth) == expired)
    }

    @Test("validateNotExpired throws expired only for past months")
    func validateNotExpired() throws {
        let current = try CardExpiry(month: 6, year: 2026)
        try current.validateNotExpired(currentYear: 2026, currentMonth: 6)
        let past = try CardExpiry(month: 5, year: 2026)
        expectCardDataError(field: "card.expiryDate", code: "expired") { () throws(CardDataError) in
            try past.validateNotExpired(currentYear: 2026, currentMonth: 6)
        }
    }

    @Test("orders by year then month")
    func ordering() throws {
        #expect(try CardExpiry(month: 12, year: 2026) < CardExpiry(month: 1, year: 2027))
        #expect(try CardExpiry(month: 2, year: 2027) > CardExpiry(month: 1, year: 2027))
    }

    @Test("JSON round trip, and decoding validates")
    func codable() throws {
        let expiry = try CardExpiry(month: 9, year: 2031)
        let data = try JSONEncoder().encode(expiry)
        #expect(try JSONDecoder().decode(CardExpiry.self, from: data) == expiry)
        #expect(throws: CardDataError.self) {
            try JSONDecoder().decode(CardExpiry.self, from: Data(#"{"year":2031,"month":13}"#.utf8))
        }
    }

    /// The one "expired by date" rule every caller uses (registration, transactions, schedule
    /// creation, the charge runner): good through the last day of the expiry month.
    @Test("a card is good through the last day of its expiry month", arguments: [
        ("2030-12-31", false), ("2030-12-01", false), ("2031-01-01", true), ("2030-11-30", false), ("2031-12-31", true),
    ])
    func expiredOnADay(day: String, expired: Bool) throws {
        let expiry = try CardExpiry(month: 12, year: 2030)
        let date = try #require(CivilDate(iso: day))
        #expect(expiry.isExpired(on: date) == expired)
    }

    @Test func februaryExpiryIsGoodOnTheTwentyNinthOfALeapYear() throws {
        let expiry = try CardExpiry(month: 2, year: 2028)
        #expect(!expiry.isExpired(on: try #require(CivilDate(year: 2028, month: 2, day: 29))))
        #expect(expiry.isExpired(on: try #require(CivilDate(year: 2028, month: 3, day: 1))))
    }
}
