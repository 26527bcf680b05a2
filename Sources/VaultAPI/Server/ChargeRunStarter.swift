import Foundation
import Scheduler
import Vault

/// Starts a charge run of one merchant now, as of an instant, for real or as a dry run: the one
/// path of `POST /v1/charge-runs` and the console's "Start the run", so both keep the same rules.
///
/// One running run per merchant, across servers: each run is a row, an audit event and its own
/// gateway concurrency, so a loop of starts must not multiply them. The row and its
/// `charge_run.started` event are one write; the run is then handed to the `ChargeRunQueue`.
struct ChargeRunStarter: Sendable {
    let services: APIServices

    /// A run of the merchant still `running` after this long is taken as left by a server that died on
    /// another host (a process gone from this host is noticed at once) and no longer blocks a start.
    static let runningRunStaleAfter: TimeInterval = 6 * 3600

    func start(merchant: Merchant, asOf: Date, dryRun: Bool, actor: String) async throws -> ChargeRunStartOutcome {
        var options = services.chargeRunOptions(asOf)
        options.merchantID = merchant.id
        options.dryRun = dryRun
        guard services.chargeRuns.isAccepting else { return .notAccepting }
        let runID = OpaqueToken.make(prefix: "run_", randomBits: 80)
        let now = Date()
        let record = ChargeRunRecord(
            id: runID, merchantID: merchant.id, status: .running, asOf: asOf, dryRun: dryRun, startedBy: actor, startedAt: now,
            owner: RunnerIdentity.process)
        if let running = try await services.store.insertChargeRun(
            record,
            audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "charge_run.started", objectType: "charge_run", objectID: runID),
            unlessRunningSince: now.addingTimeInterval(-Self.runningRunStaleAfter))
        {
            return .alreadyRunning(running)
        }
        guard services.chargeRuns.submit(ChargeRunJob(record: record, options: options, actor: actor)) else {
            // Shutting down between the check and now: the run never starts.
            var refused = record
            refused.status = .failed
            refused.finishedAt = Date()
            try? await services.store.updateChargeRun(refused)
            return .notAccepting
        }
        return .started(record)
    }
}
