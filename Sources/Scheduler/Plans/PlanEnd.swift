public import Vault

/// When a repeating plan stops (the API's `endType`).
public enum PlanEnd: Sendable, Hashable {
    /// Steps dated on or before this date (inclusive).
    case date(CivilDate)
    /// Exactly this many steps.
    case count(Int)
    /// Open-ended: steps are materialized up to a rolling horizon.
    case never

    /// The API's `endType` name: `date`, `count` or `never`.
    public var endType: String {
        switch self {
        case .date: "date"
        case .count: "count"
        case .never: "never"
        }
    }
}
