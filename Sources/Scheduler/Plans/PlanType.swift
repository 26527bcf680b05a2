/// How a plan repeats (the API's schedule `type`).
public enum PlanType: String, Codable, Sendable, CaseIterable {
    /// One step on the start date.
    case delayedOnce
    /// Every week on one weekday (`day` 0-7, 0 and 7 Sunday).
    case weekly
    /// Every month on one day (`day` 1-32, 32 the last day).
    case monthly
    /// Every third month from `month`, on `day`.
    case quarterly
    /// Every year on `month` and `day`.
    case annual
    /// One step on each of the given `dates`.
    case arbitraryDates

    /// Whether the plan repeats by a rule and so needs an end (`date`, `count` or `never`).
    public var repeats: Bool {
        switch self {
        case .weekly, .monthly, .quarterly, .annual: true
        case .delayedOnce, .arbitraryDates: false
        }
    }
}
