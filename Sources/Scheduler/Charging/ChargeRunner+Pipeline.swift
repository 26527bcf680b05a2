import Foundation
import Vault

/// What every stage of one run needs: its options, lease owner, actor and per-run caches.
struct RunState: Sendable {
    var options: ChargeRunner.Options
    var owner: String
    var actor: String
    var context: RunContext
}

extension ChargeRunner {
    /// How one step ended, for the summary.
    struct StepResult: Sendable {
        var outcome: ChargeOutcome
        var amount: Int64
        var currency: String
        var recorded = RecordedOutcome()
        /// Why it was not approved: the decline or error code (nil when approved).
        var code: String?
        /// The step's merchant, for the run's warnings.
        var merchantID: String?
        /// The merchant's gateway, for the run's warnings.
        var gateway: String?
        /// Declined by the card's issuer or the vault (the customer's card), not a gateway or vault error.
        var cardDeclined = false

        static func unsettled(_ step: ScheduleStep, code: String) -> StepResult {
            StepResult(outcome: .unsettled, amount: step.amount, currency: step.currency.code, code: code)
        }
    }

    /// A step that ended without its outcome written: its lease is held until the run ends.
    struct HeldStep: Sendable {
        var stepID: String
        var result: StepResult
    }

    /// What the stages of a run report back to its loop.
    enum RunEvent: Sendable {
        /// A batch was claimed and its attempts prepared.
        case claimed(ClaimedBatch)
        /// A group of attempts was written.
        case attemptsRecorded(RecordedAttempts)
        /// A gateway call (or settling look-up) answered.
        case answered(AnsweredCharge)
        /// Outcomes were written: per step, its result, or the step held when its outcome could not be written.
        case recorded([Result<StepResult, HeldError>])
    }

    /// A step whose outcome could not be written.
    struct HeldError: Error {
        var held: HeldStep
    }

    /// Charges every due step: claims batches, writes attempts in groups just before their gateway
    /// calls, calls the gateways with at most `concurrency` calls in flight, and writes their
    /// outcomes in groups.
    ///
    /// Four stages run side by side, driven by this loop (no timers): claiming (leases, merchants,
    /// cards; at most two batches at once), writing attempts (`attemptGroup` per write, at most
    /// two writes at once, only while fewer than `concurrency` + `attemptGroup` written attempts
    /// wait for a call), gateway calls, and outcome writes (at most two at once, each taking every
    /// answer that arrived meanwhile, so groups grow with the load). A step's gateway call starts
    /// only after its attempt is on disk, and its outcome is written after the call. Attempts are
    /// written just ahead of the calls, so a crash leaves at most about `concurrency` +
    /// 2 × `attemptGroup` attempts in doubt (settled by the next run after the grace period),
    /// however far claims run ahead.
    /// At most `window` claimed steps are unfinished at any time, so memory stays flat however
    /// many are due.
    func chargeDueSteps(
        _ run: RunState, summary: inout ChargeRunSummary, failures: inout ChargeFailureTally, started: ContinuousClock.Instant,
        held: inout [String], progress: @escaping @Sendable (ChargeRunSummary) -> Void
    ) async throws {
        let concurrency = max(1, run.options.concurrency)
        let batchSize = max(1, run.options.batchSize)
        let attemptGroup = min(batchSize, max(concurrency, 128))
        let window = max(4 * batchSize, concurrency + 2 * batchSize)
        try await withThrowingTaskGroup(of: RunEvent.self) { group in
            var claimed: [ReadyCharge] = []
            var ready: [ReadyCharge] = []
            var answered: [AnsweredCharge] = []
            var claiming = 0
            var writingAttempts = 0
            var attemptsBeingWritten = 0
            var calling = 0
            var recording = 0
            var unfinished = 0
            var exhausted = false
            func count(_ result: StepResult) {
                summary.record(result.outcome, amount: result.amount, currency: result.currency, code: result.code)
                failures.add(result)
                if result.recorded.scheduleCompleted { summary.schedulesCompleted += 1 }
                if result.recorded.schedulePastDue { summary.schedulesPastDue += 1 }
                summary.durationSeconds = Self.seconds(since: started)
                progress(summary)
            }
            func hold(_ steps: [HeldStep]) {
                for step in steps {
                    held.append(step.stepID)
                    count(step.result)
                }
            }
            /// A stopped run releases what it claimed and has not begun (no attempt written): those
            /// steps stay due for the next run. Open attempts waiting to be settled are left too.
            func releaseUnbegun() {
                let unbegun = claimed + ready.filter(\.settlesOpenAttempt)
                guard !unbegun.isEmpty else { return }
                held.append(contentsOf: unbegun.map(\.due.step.id))
                unfinished -= unbegun.count
                claimed = []
                ready.removeAll(where: \.settlesOpenAttempt)
            }
            while true {
                if let reason = run.options.stop?.requested {
                    summary.recordStop(reason)
                    exhausted = true
                    releaseUnbegun()
                }
                while !exhausted, claiming < 2, unfinished + (claiming + 1) * batchSize <= window {
                    group.addTask(priority: .high) { .claimed(try await self.claimBatch(run, limit: batchSize)) }
                    claiming += 1
                }
                while writingAttempts < 2, !claimed.isEmpty, ready.count + attemptsBeingWritten < concurrency + attemptGroup {
                    let attempts = Array(claimed.suffix(attemptGroup).reversed())
                    claimed.removeLast(attempts.count)
                    group.addTask(priority: .high) { .attemptsRecorded(await self.recordAttempts(attempts, owner: run.owner)) }
                    writingAttempts += 1
                    attemptsBeingWritten += attempts.count
                }
                while calling < concurrency, let next = ready.popLast() {
                    group.addTask { .answered(await self.call(next, run: run)) }
                    calling += 1
                }
                // Two outcome writes at a time: the next group is prepared and queued while the
                // writer commits the previous one.
                if recording < 2, !answered.isEmpty {
                    let flushing = answered
                    answered = []
                    group.addTask(priority: .high) { .recorded(await self.record(flushing, run: run)) }
                    recording += 1
                }
                guard let event = try await group.next() else { break }
                switch event {
                case .claimed(let batch):
                    claiming -= 1
                    exhausted = exhausted || batch.claimed == 0
                    unfinished += batch.attempts.count + batch.settling.count
                    claimed.insert(contentsOf: batch.attempts.reversed(), at: 0)
                    ready.insert(contentsOf: batch.settling.reversed(), at: 0)
                    hold(batch.held)
                    for unreadable in batch.unreadable {
                        held.append(unreadable.stepID)
                        summary.recordUnreadable()
                    }
                    for refused in batch.refused {
                        summary.integrityFailures += 1
                        count(refused)
                    }
                case .attemptsRecorded(let recorded):
                    writingAttempts -= 1
                    attemptsBeingWritten -= recorded.ready.count + recorded.held.count
                    unfinished -= recorded.held.count
                    ready.insert(contentsOf: recorded.ready.reversed(), at: 0)
                    hold(recorded.held)
                case .answered(let answer):
                    calling -= 1
                    answered.append(answer)
                case .recorded(let results):
                    recording -= 1
                    unfinished -= results.count
                    for result in results {
                        switch result {
                        case .success(let step):
                            count(step)
                        case .failure(let failure):
                            hold([failure.held])
                        }
                    }
                }
            }
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
