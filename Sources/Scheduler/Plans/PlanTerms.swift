/// A plan as the merchant gave it, before validation: the plan's type, dates, time and zone as
/// text and numbers, each possibly absent.
///
/// Every field is optional so that a missing one becomes a `required` validation error naming
/// it (``Plan/init(validating:rules:)``). A schedule keeps its plan in this form (time zone, hour
/// and minute filled in), and ``StoredPlan`` stores it.
public struct PlanTerms: Sendable, Equatable {
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

    /// Terms with the given fields; all default to absent.
    public init(
        type: String? = nil, startDate: String? = nil, endType: String? = nil, endDate: String? = nil,
        endCount: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int? = nil, minute: Int? = nil,
        dates: [String]? = nil, timeZone: String? = nil
    ) {
        self.type = type
        self.startDate = startDate
        self.endType = endType
        self.endDate = endDate
        self.endCount = endCount
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.dates = dates
        self.timeZone = timeZone
    }
}
