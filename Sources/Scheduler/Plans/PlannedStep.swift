public import Foundation
public import Vault

/// One expanded step of a plan: its place in the plan, its civil date, and the instant it falls due.
public struct PlannedStep: Sendable, Hashable {
    /// The step's position in the plan, 1-based.
    public let sequence: Int
    /// The date of the step on the schedule's calendar.
    public let date: CivilDate
    /// The instant of `date` at the plan's time in the plan's zone (DST gaps forward, overlaps first).
    public let dueAt: Date

    /// A step at `sequence` (1-based) on `date`, due at `dueAt`.
    public init(sequence: Int, date: CivilDate, dueAt: Date) {
        self.sequence = sequence
        self.date = date
        self.dueAt = dueAt
    }
}
