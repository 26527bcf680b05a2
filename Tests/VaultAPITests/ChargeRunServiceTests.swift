import Foundation
import Scheduler
import Synchronization
import Testing
@testable import VaultAPI
@testable import VaultApp

/// Charge runs started over HTTP run as a lifecycle service, and a finished run is
/// never turned back to `running` by a progress write that was still in flight.
@Suite struct ChargeRunServiceTests {
    /// Every write a saver makes, in the order they complete; progress writes wait at a gate.
    final class RecordingWrites: Sendable {
        private struct State {
            var completed: [ChargeRunStatus] = []
            var finalStarted = false
            var gate: CheckedContinuation<Void, Never>?
            var gateOpen = false
        }

        private let state = Mutex(State())

        var completed: [ChargeRunStatus] { state.withLock { $0.completed } }
        var finalStarted: Bool { state.withLock { $0.finalStarted } }

        func write(_ record: ChargeRunRecord) async {
            if record.status == .running {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let open = state.withLock { state -> Bool in
                        if state.gateOpen { return true }
                        state.gate = continuation
                        return false
                    }
                    if open { continuation.resume() }
                }
            } else {
                state.withLock { $0.finalStarted = true }
            }
            state.withLock { $0.completed.append(record.status) }
        }

        func openGate() {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.gateOpen = true
                defer { state.gate = nil }
                return state.gate
            }
            waiting?.resume()
        }
    }

    static func record() -> ChargeRunRecord {
        ChargeRunRecord(id: "run_test", merchantID: "mer_test", status: .running, asOf: Date(timeIntervalSince1970: 0),
                        dryRun: false, startedBy: "test", startedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func aFinishedRunNeverReturnsToRunning() async {
        let writes = RecordingWrites()
        let saver = ProgressSaver(record: Self.record(), minimumInterval: .zero) { await writes.write($0) }
        let bodyReturned = Mutex(false)
        // Opens the gate once the run's body has returned and either the final write has started
        // (the old detached progress write would then land last) or the saver waits for progress.
        let opener = Task {
            while !bodyReturned.withLock({ $0 }) { await Task.yield() }
            for _ in 0..<200 where !writes.finalStarted { await Task.yield() }
            writes.openGate()
        }
        await saver.run { progress in
            progress(ChargeRunSummary(runId: "run_test", asOf: Date(timeIntervalSince1970: 0), dryRun: false))
            bodyReturned.withLock { $0 = true }
            return ChargeRunSummary(runId: "run_test", asOf: Date(timeIntervalSince1970: 0), dryRun: false)
        }
        await opener.value
        #expect(writes.completed == [.running, .completed])
        #expect(writes.completed.last == .completed)
    }

    @Test func aRunThatThrowsIsRecordedFailedAfterItsProgress() async {
        struct Broken: Error {}
        let writes = RecordingWrites()
        writes.openGate()
        let saver = ProgressSaver(record: Self.record(), minimumInterval: .zero) { await writes.write($0) }
        await saver.run { progress in
            progress(ChargeRunSummary(runId: "run_test", asOf: Date(timeIntervalSince1970: 0), dryRun: false))
            throw Broken()
        }
        #expect(writes.completed == [.running, .failed])
    }

    @Test func progressIsWrittenAtMostOncePerInterval() async {
        let writes = RecordingWrites()
        writes.openGate()
        let saver = ProgressSaver(record: Self.record(), minimumInterval: .seconds(3600)) { await writes.write($0) }
        await saver.run { progress in
            for _ in 0..<50 { progress(ChargeRunSummary(runId: "run_test", asOf: Date(timeIntervalSince1970: 0), dryRun: false)) }
            return ChargeRunSummary(runId: "run_test", asOf: Date(timeIntervalSince1970: 0), dryRun: false)
        }
        #expect(writes.completed == [.completed])
    }

    @Test func theQueueTakesRunsOnlyWhileItsServiceRuns() async {
        let queue = ChargeRunQueue()
        let job = ChargeRunJob(record: Self.record(), options: ChargeRunner.Options(asOf: Date()), actor: "test")
        #expect(!queue.isAccepting)
        #expect(!queue.submit(job))
        let jobs = queue.open()
        #expect(queue.submit(job))
        queue.close()
        #expect(!queue.submit(job))
        var taken = 0
        for await _ in jobs { taken += 1 }
        #expect(taken == 1)
    }
}
