public import Foundation
public import Payments
public import Vault

/// A step the runner has leased, with what it needs to charge it.
public struct DueStep: Sendable {
    /// The step (status `scheduled`, `retry_pending`, or `processing` with an open attempt).
    public var step: ScheduleStep
    /// Its schedule.
    public var schedule: Schedule
    /// The attempt recorded before a gateway call whose outcome never got recorded (crash,
    /// timeout, gateway error): settled with the same idempotency key before anything else.
    public var openAttempt: Transaction?

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        step: ScheduleStep, schedule: Schedule, openAttempt: Transaction?
    ) {
        self.step = step
        self.schedule = schedule
        self.openAttempt = openAttempt
    }
}

/// How a step ends up after an attempt.
public struct StepOutcome: Sendable {
    /// The attempt's transaction, with its gateway outcome applied.
    public var transaction: Transaction
    /// The step's new status: `approved`, `retry_pending`, `failed`, `processing` (unsettled) or
    /// `needs_review` (in doubt, for an operator).
    public var stepStatus: StepStatus
    /// For `retry_pending`: when the next attempt falls due.
    public var nextAttemptAt: Date?
    /// For `failed`: what happens to the schedule.
    public var pastDuePolicy: PastDuePolicy?
    /// For `processing` (unsettled): how long no runner claims the step again.
    public var holdBack: TimeInterval = 120
    /// When set, the step must still have this status when the outcome is written, else nothing
    /// of it is written (``StepReviewError/wrongStatus(current:)``): an operator's resolution of a
    /// `needs_review` step.
    public var expectedStepStatus: StepStatus? = nil
}

extension StepOutcome {
    /// The outcome of an approved attempt: the step becomes `approved`. Benchmark SPI, not API:
    /// the runner decides a step's outcome from the gateway's answer and its retry policy; the
    /// charge-loop benchmark writes approvals without a runner or gateway.
    @_spi(Benchmarks) public init(approved transaction: Transaction) {
        self.init(transaction: transaction, stepStatus: .approved)
    }
}

/// A new attempt, written before its gateway call.
public struct ChargeAttempt: Sendable {
    /// The attempt's transaction: `pending`, with the idempotency key `<step id>-a<attempt>`.
    public var transaction: Transaction
    /// The step it charges.
    public var step: ScheduleStep
    /// The runner that leased the step (``RunnerIdentity``): when given, the attempt is written
    /// only while the step's lease is still this owner's (else ``StepLeaseError/leaseLost``), so a
    /// runner whose lease expired and was taken over does not reset the taker's attempt.
    public var leaseOwner: String?

    /// Creates a value.
    public init(transaction: Transaction, step: ScheduleStep, leaseOwner: String? = nil) {
        self.transaction = transaction
        self.step = step
        self.leaseOwner = leaseOwner
    }
}

/// An attempt's outcome, written after its gateway call.
public struct AttemptOutcome: Sendable {
    /// The transaction with the gateway's answer applied, and the step's new status.
    public var outcome: StepOutcome
    /// The step as claimed.
    public var step: ScheduleStep
    /// Its schedule as claimed (its status is read again when the outcome is written).
    public var schedule: Schedule
    /// The charge's audit event (`charge.<status>`).
    public var audit: AuditEntry
    /// The runner that leased the step: when given, the outcome is written only while the step's
    /// lease is still this owner's (else ``StepLeaseError/leaseLost``): a runner that lost its lease
    /// never overwrites the outcome of the runner that took the step over. Nil for an operator's
    /// resolution (checked by ``StepOutcome/expectedStepStatus`` instead).
    public var leaseOwner: String?
    /// The card holder and merchant the outcome's callback names.
    public var parties: CallbackParties
    /// Where an approved charge's text receipt goes (`receipt.sms_requested`); nil for none.
    public var receipt: ReceiptRequest?
    /// An approved charge's e-mail receipt, queued with the outcome; nil for none.
    public var emailReceipt: PendingReceipt?

    /// Creates a value.
    public init(
        outcome: StepOutcome, step: ScheduleStep, schedule: Schedule, audit: AuditEntry, leaseOwner: String? = nil,
        parties: CallbackParties = CallbackParties(), receipt: ReceiptRequest? = nil, emailReceipt: PendingReceipt? = nil
    ) {
        self.outcome = outcome
        self.step = step
        self.schedule = schedule
        self.audit = audit
        self.leaseOwner = leaseOwner
        self.parties = parties
        self.receipt = receipt
        self.emailReceipt = emailReceipt
    }
}

/// Why an attempt or outcome of a leased step was not written.
public enum StepLeaseError: Error, Equatable, CustomStringConvertible {
    /// The step is no longer the writer's to charge: its lease expired and another runner claimed
    /// it, or it was skipped or cancelled (with its schedule or card) since the claim.
    case leaseLost(stepID: String)

    public var description: String {
        switch self {
        case .leaseLost(let stepID): "step \(stepID) is no longer this runner's to charge (its lease was taken over, or it was skipped or cancelled)"
        }
    }
}

/// What the runner learns from recording an outcome.
public struct RecordedOutcome: Sendable, Equatable {
    /// The schedule became `completed`.
    public var scheduleCompleted: Bool
    /// The schedule became `past_due` (or paused / cancelled by policy).
    public var schedulePastDue: Bool

    /// Creates a value.
    public init(scheduleCompleted: Bool = false, schedulePastDue: Bool = false) {
        self.scheduleCompleted = scheduleCompleted
        self.schedulePastDue = schedulePastDue
    }
}

/// Where a recorded charge run stands.
public enum ChargeRunStatus: String, Sendable, Codable, CaseIterable, StatusName {
    /// Started and not finished: its summary is its progress so far.
    case running
    /// Finished; its summary is final.
    case completed
    /// Stopped by an error, or its process died before it finished.
    case failed

    /// Runs that have ended, whether they completed or failed.
    public static let finished: [ChargeRunStatus] = [.completed, .failed]
}

/// A charge run as recorded (CLI or `POST /v1/charge-runs`).
public struct ChargeRunRecord: Sendable, Equatable {
    /// `run_...`.
    public var id: String
    /// The merchant it was limited to.
    public var merchantID: String?
    /// Running, completed or failed.
    public var status: ChargeRunStatus
    /// The instant steps had to be due by.
    public var asOf: Date
    /// Whether it only reported.
    public var dryRun: Bool
    /// Who started it.
    public var startedBy: String
    /// When it started.
    public var startedAt: Date
    /// When it finished.
    public var finishedAt: Date?
    /// The summary so far (progress) or at the end, JSON.
    public var summary: String?
    /// The process running it (``RunnerIdentity``): a `running` run whose process is gone from
    /// this host was killed, and is shown, then recorded, as `failed`.
    public var owner: String?

    /// Creates a record.
    public init(id: String, merchantID: String?, status: ChargeRunStatus, asOf: Date, dryRun: Bool, startedBy: String, startedAt: Date,
                finishedAt: Date? = nil, summary: String? = nil, owner: String? = nil) {
        self.id = id
        self.merchantID = merchantID
        self.status = status
        self.asOf = asOf
        self.dryRun = dryRun
        self.startedBy = startedBy
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.summary = summary
        self.owner = owner
    }
}

/// Persistence the charge runner needs. Claims and outcomes are atomic; several runners (and
/// processes) may use one store at once without overlapping.
public protocol ChargeRunStore: Sendable {
    /// Leases up to `limit` due steps: `scheduled` with `dueAt <= asOf`, `retry_pending` with
    /// `nextAttemptAt <= asOf`, or `processing` (an unsettled attempt) — of active or past-due
    /// schedules — whose lease is free, expired, or held by an owner `isOwnerGone` says is dead.
    /// A leased step whose step, schedule or open attempt row this build cannot read is returned
    /// in `unreadable` (still leased), never thrown: one such row must not stop a run.
    func claimDueSteps(
        asOf: Date, merchantID: String?, owner: String, now: Date, leaseUntil: Date, limit: Int,
        isOwnerGone: @escaping @Sendable (String) -> Bool
    ) async throws -> ClaimedSteps
    /// Writes attempts before their gateway calls, all in one write: for each, the transaction (new,
    /// or the open one reset to `pending`) and the step's attempt count, status `processing`.
    ///
    /// Each attempt is written on its own (a savepoint), so one that fails changes nothing and
    /// leaves the others written. Returns once they are on disk (a gateway call may follow).
    /// - Returns: per attempt, in order, `nil` when it was written, else why not.
    /// - Throws: when the write as a whole failed: then none was written.
    func recordAttempts(_ attempts: [ChargeAttempt]) async throws -> [(any Error)?]
    /// Writes outcomes, all in one write: for each, in one transaction of its own (a savepoint), the
    /// transaction's outcome, the step's new status (releasing its lease), the schedule's change
    /// (completed, past due by policy), audit events and webhook events.
    ///
    /// - Returns: per outcome, in order, what changed, or why it was not written (then nothing of it was).
    /// - Throws: when the write as a whole failed: then none was written.
    func recordOutcomes(_ outcomes: [AttemptOutcome]) async throws -> [Result<RecordedOutcome, any Error>]
    /// Releases leases held by `owner` without changing anything else.
    func releaseLeases(stepIDs: [String], owner: String) async throws
    /// Steps in doubt and held back: an attempt whose outcome is unknown, not to be looked up again
    /// before its hold (the in-doubt grace period) ends — of active or past-due schedules, of
    /// `merchantID` when given. No run can settle them before then.
    func heldBackSteps(merchantID: String?, now: Date) async throws -> Int
    /// Counts and totals (per currency) of steps due by `asOf`, without claiming them.
    func dueStepTotals(asOf: Date, merchantID: String?) async throws -> (count: Int, totals: [String: Int64])
    /// Open-ended schedules that may need more steps (active, paused or past due), each read or
    /// the error of a row this build cannot read (one such row must not stop a run).
    func openEndedSchedules(merchantID: String?) async throws -> [Result<Schedule, StoredRowError>]
    /// The last materialized step of a schedule.
    func lastStep(scheduleID: String) async throws -> ScheduleStep?
    /// Records a run.
    func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry) async throws
    /// Records a run of one merchant (`run.merchantID`) unless that merchant already has one
    /// running: a run of the merchant still `running`, started after `staleBefore`, whose owner
    /// is not known to be dead. Atomic across servers: of many starts at once, one is recorded.
    /// - Returns: nil when recorded; else the run already running, and nothing is written.
    func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry, unlessRunningSince staleBefore: Date) async throws -> ChargeRunRecord?
    /// Updates a run's status, summary and end.
    func updateChargeRun(_ run: ChargeRunRecord) async throws
    /// One run (of a merchant, or any when nil).
    func chargeRun(id: String, merchantID: String?) async throws -> ChargeRunRecord?
}
