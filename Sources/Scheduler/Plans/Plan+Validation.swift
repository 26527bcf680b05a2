import Foundation
import Vault

extension Plan {
    /// Validates a plan as the merchant gave it and builds the plan, reporting the first broken rule.
    ///
    /// Decisions the field list alone leaves open:
    /// - repeating types need `endType`; `date` needs `endDate` and forbids `endCount`, `count` needs
    ///   `endCount` and forbids `endDate`, `never` forbids both;
    /// - `delayedOnce` and `arbitraryDates` are ended by their dates: `endType`, `endDate` and
    ///   `endCount` are not allowed there;
    /// - `month`/`day` are not allowed on types that do not use them; `dates` (unless empty) only on
    ///   `arbitraryDates`, where `startDate` is optional and, if given, no date may precede it;
    /// - no `hour` and no `minute` means the default time; `hour` alone means minute 0; `minute`
    ///   alone is an error on `hour` (`required`);
    /// - "today" is in the plan's zone, and today itself is allowed;
    /// - `maxCount` caps `endCount`, the number of `dates`, and the steps up to `endDate` alike, since
    ///   every finite plan is materialized when it is created.
    ///
    /// - Throws: `PlanValidationError` with the field and the rule's machine code.
    public init(validating terms: PlanTerms, rules: PlanRules) throws(PlanValidationError) {
        guard let typeName = terms.type else {
            throw .required("type", "type is required: \(Self.typeNames)")
        }
        guard let type = PlanType(rawValue: typeName) else {
            throw .init(field: "type", rule: "unknown_value", message: "type must be one of \(Self.typeNames)")
        }
        let startDate = try terms.startDate.map { text throws(PlanValidationError) in try Self.parse(text, field: "startDate") }
        if startDate == nil, type != .arbitraryDates {
            throw .required("startDate", "startDate (yyyy-MM-dd) is required for a \(typeName) plan")
        }
        let end = try Self.parseEnd(terms, type: type)
        let time = try Self.parseTime(terms, default: rules.defaultTime)
        let dates = try Self.parseDates(terms.dates, type: type)
        let timeZone = try Self.parseTimeZone(terms.timeZone, default: rules.defaultTimeZone)

        try self.init(
            type: type, startDate: startDate, end: end, month: terms.month, day: terms.day,
            dates: dates, time: time, timeZone: timeZone)

        let today = rules.today ?? CivilDate.today(in: timeZone)
        let zoneName = rules.timeZoneName(requested: terms.timeZone)
        if let startDate, startDate < today {
            throw .init(field: "startDate", rule: "in_past", message: "startDate \(startDate) is before today (\(today) in \(zoneName))")
        }
        if let index = dates.firstIndex(where: { $0 < today }) {
            throw .init(field: "dates[\(index)]", rule: "in_past", message: "\(dates[index]) is before today (\(today) in \(zoneName))")
        }
        try checkCap(rules.maxCount)
    }

    private static let typeNames = PlanType.allCases.map(\.rawValue).joined(separator: ", ")

    private static func parse(_ text: String, field: String) throws(PlanValidationError) -> CivilDate {
        guard let date = CivilDate(iso: text) else {
            throw .init(field: field, rule: "invalid_format", message: "\(field) must be a real date as yyyy-MM-dd (years 0001-9999)")
        }
        return date
    }

    private static func parseEnd(_ terms: PlanTerms, type: PlanType) throws(PlanValidationError) -> PlanEnd? {
        guard let endType = terms.endType else {
            guard type.repeats else {
                if terms.endDate != nil { throw .notAllowed("endDate", "a \(type.rawValue) plan ends with its dates; endDate does not apply") }
                if terms.endCount != nil { throw .notAllowed("endCount", "a \(type.rawValue) plan ends with its dates; endCount does not apply") }
                return nil
            }
            throw .required("endType", "endType (date, count or never) is required for a \(type.rawValue) plan")
        }
        guard type.repeats else {
            throw .notAllowed("endType", "a \(type.rawValue) plan ends with its dates; endType does not apply")
        }
        switch endType {
        case "date":
            if terms.endCount != nil { throw .notAllowed("endCount", "endCount does not apply when endType is date") }
            guard let endDate = terms.endDate else { throw .required("endDate", "endDate (yyyy-MM-dd) is required when endType is date") }
            return .date(try parse(endDate, field: "endDate"))
        case "count":
            if terms.endDate != nil { throw .notAllowed("endDate", "endDate does not apply when endType is count") }
            guard let endCount = terms.endCount else { throw .required("endCount", "endCount is required when endType is count") }
            return .count(endCount)
        case "never":
            if terms.endDate != nil { throw .notAllowed("endDate", "endDate does not apply when endType is never") }
            if terms.endCount != nil { throw .notAllowed("endCount", "endCount does not apply when endType is never") }
            return .never
        default:
            throw .init(field: "endType", rule: "unknown_value", message: "endType must be date, count or never")
        }
    }

    private static func parseTime(_ terms: PlanTerms, default defaultTime: LocalTime) throws(PlanValidationError) -> LocalTime {
        guard let hour = terms.hour else {
            if terms.minute != nil { throw .required("hour", "minute needs hour") }
            return defaultTime
        }
        guard (0...23).contains(hour) else { throw .outOfRange("hour", "hour must be 0-23") }
        let minute = terms.minute ?? 0
        guard let time = LocalTime(hour: hour, minute: minute) else { throw .outOfRange("minute", "minute must be 0-59") }
        return time
    }

    private static func parseDates(_ texts: [String]?, type: PlanType) throws(PlanValidationError) -> [CivilDate] {
        guard let texts else {
            if type == .arbitraryDates { throw .required("dates", "dates (yyyy-MM-dd each) are required for an arbitraryDates plan") }
            return []
        }
        var dates: [CivilDate] = []
        dates.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            dates.append(try parse(text, field: "dates[\(index)]"))
        }
        return dates
    }

    private static func parseTimeZone(_ identifier: String?, default defaultZone: TimeZone) throws(PlanValidationError) -> TimeZone {
        guard let identifier else { return defaultZone }
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else {
            throw .init(field: "timeZone", rule: "unknown_time_zone", message: "timeZone must be an IANA zone identifier such as Europe/London")
        }
        return zone
    }

    private func checkCap(_ maxCount: Int) throws(PlanValidationError) {
        switch end {
        case .count(let count) where count > maxCount:
            if type == .arbitraryDates { throw .outOfRange("dates", "at most \(maxCount) dates are allowed") }
            throw .outOfRange("endCount", "endCount must be 1-\(maxCount)")
        case .date:
            var beyondCap = stepDates.dropFirst(maxCount).makeIterator()
            if beyondCap.next() != nil {
                throw .outOfRange("endDate", "the plan would have more than \(maxCount) steps up to endDate")
            }
        default:
            break
        }
    }
}
