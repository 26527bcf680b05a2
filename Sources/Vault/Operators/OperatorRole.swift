/// What a console operator may do. Each role includes the one before it: `readonly` sees,
/// `support` also changes cards and schedules and moves money back (refunds, voids, resolutions),
/// `admin` also manages custom fields, API keys, webhooks and operators.
public enum OperatorRole: String, Sendable, Codable, CaseIterable, Comparable {
    case readonly
    case support
    case admin

    /// A kind of console action, by the least role that may take it.
    public enum Permission: Sendable {
        /// Reading cards, schedules, transactions, statistics and the audit trail.
        case view
        /// Updating cards and schedules, resolving reviews, refunds and voids.
        case support
        /// Custom fields, API keys, webhooks and operators.
        case administer
    }

    /// Whether this role may take actions of `permission`.
    public func allows(_ permission: Permission) -> Bool {
        switch permission {
        case .view: true
        case .support: self >= .support
        case .administer: self == .admin
        }
    }

    private var rank: Int {
        switch self {
        case .readonly: 0
        case .support: 1
        case .admin: 2
        }
    }

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool { lhs.rank < rhs.rank }
}
