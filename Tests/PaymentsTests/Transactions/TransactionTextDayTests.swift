import Foundation
@testable import Payments
import Testing
import Vault

/// A search text that is a date means that day of the merchant's time zone.
@Suite struct TransactionTextDayTests {
    @Test(arguments: [
        ("2026-11-26", "America/Los_Angeles", "2026-11-26T08:00:00.000Z", "2026-11-27T08:00:00.000Z"),
        ("2026-03-08", "America/Los_Angeles", "2026-03-08T08:00:00.000Z", "2026-03-09T07:00:00.000Z"),
        ("2026-11-26", "Asia/Tokyo", "2026-11-25T15:00:00.000Z", "2026-11-26T15:00:00.000Z"),
    ])
    func aDateIsThatLocalDay(text: String, zone: String, start: String, end: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let day = try #require(TransactionService.day(named: text, in: timeZone))
        #expect(Timestamp.string(day.lowerBound) == start)
        #expect(Timestamp.string(day.upperBound) == end)
    }

    @Test(arguments: ["2026-02-30", "26-11-2026", "2026-11-26T00:00:00Z", "lovelace", "1999"])
    func otherTextIsNoDate(text: String) {
        #expect(TransactionService.day(named: text, in: TimeZone(identifier: "UTC")!) == nil)
    }
}
