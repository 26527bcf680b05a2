import Foundation
import Testing
import Vault

@Suite struct LocalTimeTests {
    @Test(arguments: [(-1, 0), (24, 0), (0, 60), (0, -1)])
    func outOfRangeHourOrMinuteGivesNil(hour: Int, minute: Int) {
        #expect(LocalTime(hour: hour, minute: minute) == nil)
    }

    @Test func codableUsesHHmmAndAcceptsTheKeyedForm() throws {
        let time = try #require(LocalTime(hour: 9, minute: 5))
        #expect(time.iso == "09:05")
        let json = try JSONEncoder().encode([time])
        #expect(String(decoding: json, as: UTF8.self) == #"["09:05"]"#)
        #expect(try JSONDecoder().decode([LocalTime].self, from: json) == [time])
        #expect(try JSONDecoder().decode(LocalTime.self, from: Data(#"{"hour":9,"minute":5}"#.utf8)) == time)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([LocalTime].self, from: Data(#"["24:00"]"#.utf8)) }
        #expect(LocalTime(iso: "9:05") == nil)
        #expect(LocalTime(iso: "23:59") == LocalTime(hour: 23, minute: 59))
        #expect(LocalTime.midnight.secondsIntoDay == 0)
    }
}
