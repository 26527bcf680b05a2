public import Vault

/// The groups of statuses the business rules speak of, defined once here: the storage engines
/// interpolate these lists into their statements instead of writing status names of their own.
extension StepStatus {
    /// Steps that will not be charged any more: approved, failed, skipped or cancelled.
    public static let settled: [StepStatus] = [.approved, .failed, .skipped, .cancelled]

    /// Steps not settled yet (waiting, charging, retrying or in review): a schedule with one of
    /// these cannot complete.
    public static let open: [StepStatus] = allCases.filter { !settled.contains($0) }

    /// The steps a cancelled schedule cancels with it: those waiting for a charge (scheduled or
    /// retrying). A step whose attempt is under way or in review keeps its status, so its outcome
    /// (possibly a charge already made) is still recorded.
    public static let cancelledWithSchedule: [StepStatus] = [.scheduled, .retryPending]

    /// The steps a charge run claims and charges: waiting for their first attempt, retrying, or
    /// with an attempt under way. A runner's writes to a step it leased require the step to still
    /// be one of these, so a step skipped, or cancelled with its schedule or card, after the claim
    /// is never charged.
    public static let chargedByRuns: [StepStatus] = [.scheduled, .retryPending, .processing]
}

extension ScheduleStatus {
    /// Schedules that can still charge or be confirmed: pending confirmation, active, paused or
    /// past due (a card they charge cannot be deleted without cancelling them).
    public static let open: [ScheduleStatus] = [.pendingConfirmation, .active, .paused, .pastDue]

    /// The schedules a finally failed step moves by the past-due policy: those still charging
    /// (active or already past due). One the merchant paused or cancelled meanwhile stays so.
    public static let takingPastDuePolicy: [ScheduleStatus] = [.active, .pastDue]

    /// The schedules a last settled step completes: active ones (a past-due, paused or cancelled
    /// schedule keeps its status).
    public static let completable: [ScheduleStatus] = [.active]

    /// The schedules whose due steps a charge run charges: active or past due (a paused, cancelled,
    /// completed or unconfirmed schedule's steps wait).
    public static let charging: [ScheduleStatus] = [.active, .pastDue]

    /// The open-ended schedules a run may extend with more steps: active, paused or past due.
    public static let extendable: [ScheduleStatus] = [.active, .paused, .pastDue]
}

extension StepStatus: StatusName {}
extension ScheduleStatus: StatusName {}

/// The status names the due-step claims test, as SQL literals taken from the domain's enums and
/// lists: written into the statements' text, not bound, so each statement's text stays constant
/// and the partial indexes over these statuses keep being used. One list for both engines.
public enum ClaimStatusLiterals {
    public static let processing = StepStatus.processing.sqlLiteral
    public static let retryPending = StepStatus.retryPending.sqlLiteral
    public static let scheduled = StepStatus.scheduled.sqlLiteral
    public static let charging = ScheduleStatus.charging.sqlLiterals
    public static let extendable = ScheduleStatus.extendable.sqlLiterals
}
