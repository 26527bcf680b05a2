import Foundation
import PropertyBased
import Testing
@testable import Vault

@Suite struct TimestampTests {
    @Test func storedInstantsRoundTripToTheMillisecond() async {
        await propertyCheck(count: 500, input: Gen.int(in: -2_000_000_000_000...32_000_000_000_000)) { millis in
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let text = Timestamp.string(date)
            #expect(text.count == 24)
            #expect(Timestamp.parse(text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == Int64(millis))
        }
    }

    @Test func writtenInstantsMatchFoundationsFormatter() async {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        await propertyCheck(count: 500, input: Gen.int(in: -2_000_000_000_000...32_000_000_000_000)) { millis in
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            #expect(Timestamp.string(date) == formatter.string(from: date))
        }
        #expect(Timestamp.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(Date(timeIntervalSince1970: 951_782_400.999)) == "2000-02-29T00:00:00.999Z")
    }

    @Test(arguments: [
        ("2027-03-14T07:30:00.000Z", 1_805_009_400.0), ("2027-03-14T07:30:00Z", 1_805_009_400.0),
        ("2027-03-14T02:30:00-05:00", 1_805_009_400.0), ("2027-03-14T08:30:00.250+01:00", 1_805_009_400.25),
    ])
    func rfc3339FormsParse(text: String, seconds: Double) {
        #expect(Timestamp.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["2027-02-30T00:00:00.000Z", "2027-03-14T24:00:00.000Z", "2027-03-14 07:30:00Z", "yesterday", "", "2027-03-14T07:30:00.0a0Z"])
    func malformedInstantsAreRejected(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (1_805_009_400.25, "2027-03-14T07:30:00.250Z"), (-0.5, "1969-12-31T23:59:59.500Z"),
        (951_782_400.0, "2000-02-29T00:00:00.000Z"), (253_402_300_799.0, "9999-12-31T23:59:59.000Z"),
        (-62_135_596_800.0, "0001-01-01T00:00:00.000Z"), (253_402_300_800.0, "10000-01-01T00:00:00.000Z"),
    ])
    func instantsAreWrittenFixedWidthInUTC(seconds: Double, text: String) {
        #expect(Timestamp.string(Date(timeIntervalSince1970: seconds)) == text)
    }
}
