public import Scheduler

/// The plan fields of `POST /v1/schedules` and `/v1/schedules/preview` as the JSON body carries
/// them (at the body's top level), before validation: the domain's ``PlanTerms`` under the API's
/// field names.
///
/// Every field is optional here so that a missing one becomes a `required` validation error naming
/// it, rather than a decoding failure.
public struct PlanRequest: Sendable, Decodable, Equatable {
    /// `delayedOnce`, `weekly`, `monthly`, `quarterly`, `annual` or `arbitraryDates`.
    public var type: String?
    /// The first day steps may fall on, `yyyy-MM-dd`.
    public var startDate: String?
    /// `date`, `count` or `never` (repeating types only).
    public var endType: String?
    /// The last day steps may fall on, `yyyy-MM-dd` (with `endType` `date`).
    public var endDate: String?
    /// The number of steps (with `endType` `count`).
    public var endCount: Int?
    /// The month, 1-12 (quarterly and annual).
    public var month: Int?
    /// The weekday 0-7 (weekly) or the day of the month 1-32 (monthly, quarterly, annual).
    public var day: Int?
    /// The local hour steps fall due, 0-23.
    public var hour: Int?
    /// The local minute steps fall due, 0-59 (needs `hour`).
    public var minute: Int?
    /// The step dates of an `arbitraryDates` plan, `yyyy-MM-dd` each.
    public var dates: [String]?
    /// The IANA zone of the dates and times, such as `Europe/London`.
    public var timeZone: String?

    /// The plan as the domain takes it.
    public var terms: PlanTerms {
        PlanTerms(
            type: type, startDate: startDate, endType: endType, endDate: endDate, endCount: endCount, month: month, day: day,
            hour: hour, minute: minute, dates: dates, timeZone: timeZone)
    }
}
