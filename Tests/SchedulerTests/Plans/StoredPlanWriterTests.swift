import Foundation
import PropertyBased
@testable import Scheduler
import Testing

/// A schedule's binding is a MAC over its plan's stored text, so the hand-written text must be
/// byte for byte what `JSONEncoder` (sorted keys, slashes unescaped) wrote for the same plan:
/// otherwise every schedule stored before would read as altered and never be charged again.
@Suite struct StoredPlanWriterTests {
    /// Characters that stress escaping and key order: controls, quotes, backslash, slash, both
    /// cases, digits, accented letters, CJK, an emoji and the line and paragraph separators.
    static let alphabet = Array("\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\"\\/ aZz09_-.:é€中😀\u{7F}\u{2028}\u{2029}")
    static let strings = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...10).map { String($0.map { alphabet[$0] }) }
    static let optionalStrings = zip(Gen.int(in: 0...2), strings).map { kind, text in kind == 0 ? nil : text }
    /// Absent, small values of either sign (a plan's day, hour, minute, count) and any `Int`.
    static let optionalIntegers = zip(Gen.int(in: 0...4), Gen.int(in: -100...100), Gen<Int>.value())
        .map { kind, small, any -> Int? in [nil, small, any, Int.min, Int.max][kind] }
    static let optionalDates = zip(Gen.bool, strings.array(of: 0...4)).map { present, dates in present ? dates : nil }
    static let plans = zip(
        zip(optionalStrings, optionalStrings, optionalStrings, optionalStrings),
        zip(optionalIntegers, optionalIntegers, optionalIntegers, optionalIntegers, optionalIntegers),
        optionalDates, optionalStrings
    ).map { texts, integers, dates, zone in
        PlanTerms(
            type: texts.0, startDate: texts.1, endType: texts.2, endDate: texts.3, endCount: integers.0, month: integers.1,
            day: integers.2, hour: integers.3, minute: integers.4, dates: dates, timeZone: zone)
    }

    /// What the column held before the text was written by hand.
    static func encoderText(_ plan: StoredPlan) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(plan), as: UTF8.self)
    }

    @Test func theStoredTextIsWhatJSONEncoderWroteForAnyPlan() async {
        await propertyCheck(count: 500, input: Self.plans) { plan in
            let stored = StoredPlan(plan)
            let text = try? stored.storedText()
            #expect(text == (try? Self.encoderText(stored)))
            #expect((try? StoredPlan.plan(storedText: text ?? "", scheduleID: "sch_1")) == plan)
        }
    }

    @Test func aPlanWithEveryValueAbsentIsItsVersionAlone() throws {
        #expect(try StoredPlan(PlanTerms()).storedText() == #"{"v":1}"#)
        #expect(try StoredPlan(PlanTerms()).storedText() == Self.encoderText(StoredPlan(PlanTerms())))
    }
}
