public import Scheduler
public import Vault

/// What the Schedules, plan builder and Needs-review screens serve over: the API's own schedule
/// service and review queue (never a second path to storage), and the idempotency service the API's
/// `Idempotency-Key` goes through, which makes the builder's confirm form create one schedule
/// however often it is sent.
public struct ConsoleScheduling: Sendable {
    /// Schedules: list, detail, preview, create and the lifecycle (pause, resume, cancel, skip).
    public var schedules: ScheduleService
    /// Steps and one-off transactions in review, and their resolutions.
    public var reviewQueue: ReviewQueueService
    /// One-time keys of the plan builder's confirm form.
    public var idempotency: IdempotencyService
    /// The API's rule for the gateway's transaction id given with a "charged" resolution: nil when
    /// it is acceptable, else the API's message (the rule lives with the API's request type).
    public var gatewayTransactionIDProblem: @Sendable (String) -> String?

    public init(
        schedules: ScheduleService, reviewQueue: ReviewQueueService, idempotency: IdempotencyService,
        gatewayTransactionIDProblem: @escaping @Sendable (String) -> String?
    ) {
        self.schedules = schedules
        self.reviewQueue = reviewQueue
        self.idempotency = idempotency
        self.gatewayTransactionIDProblem = gatewayTransactionIDProblem
    }
}
