/// Why a schedule operation was refused.
public enum ScheduleError: Error, Equatable, Sendable {
    /// A field breaks a rule (422).
    case invalid(field: String, rule: String, message: String)
    /// No such schedule or step for this merchant (404).
    case notFound(String)
    /// The schedule's status does not allow the operation (409).
    case wrongStatus(current: ScheduleStatus, operation: String)
    /// The step cannot be skipped (409).
    case stepNotSkippable(status: StepStatus)
    /// A step changed between reading and writing: a charge run claimed it (409; nothing written).
    case stepChanged(stepID: String)
    /// The schedule's card has no customer-initiated first use of its current number on file with
    /// the merchant's gateway, and none could be made (409): its charges would have nothing to refer to.
    case storedCredentialMissing(secureCardReference: String, merchantReference: String?)
    /// The schedule's or one of its steps' stored rows are not as the vault wrote them (altered in
    /// the database): nothing is changed or re-bound, and the runner never charges them (409).
    case integrityFailed(scheduleID: String)
}
