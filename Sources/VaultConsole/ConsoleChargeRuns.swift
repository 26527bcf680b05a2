public import Foundation
public import Scheduler
public import Vault

/// What the Charge runs screen reads and starts: the merchant's run history, one run, and the same
/// starter as `POST /v1/charge-runs` (one running run per merchant, recorded with its audit event,
/// handed to the server's runner), so the console adds no second way to start a run.
public struct ConsoleChargeRuns: Sendable {
    /// Every run that charged a merchant's steps (cron, CLI and API), newest first.
    public var history: ChargeRunHistory
    /// One run of a merchant, or nil when the merchant has no such run.
    public var run: @Sendable (_ id: String, _ merchantID: String) async throws -> ChargeRunRecord?
    /// Starts a run of `merchant` as of `asOf` (a dry run when `dryRun`), started by `actor`.
    public var start: @Sendable (_ merchant: Merchant, _ asOf: Date, _ dryRun: Bool, _ actor: String) async throws -> ChargeRunStartOutcome

    public init(
        history: ChargeRunHistory, run: @escaping @Sendable (String, String) async throws -> ChargeRunRecord?,
        start: @escaping @Sendable (Merchant, Date, Bool, String) async throws -> ChargeRunStartOutcome
    ) {
        self.history = history
        self.run = run
        self.start = start
    }
}
