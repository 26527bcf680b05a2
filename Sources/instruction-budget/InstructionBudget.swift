import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// The workload of the instruction-budget guard (`scripts/instruction-budget.sh`): performs
/// `--count` of one operation on a fresh SQLite vault in a temporary directory and exits, so that
/// Valgrind's callgrind can count the instructions it took. The script runs it at two counts and
/// divides the difference by the difference in counts: opening, migrating, the keys, the merchant
/// and the `--prepared` records happen in both runs and cancel, as does start-up.
///
/// Not part of the `vault` product. Prints nothing on success; on failure, the error and exit 1 (an
/// operation that failed would be counted cheaper than one that did its work).
@main
struct InstructionBudget: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instruction-budget",
        abstract: "Performs N of one vault operation on a fresh SQLite database, for instruction counting under callgrind.")

    @Argument(help: "register, retrieve, charge-step, http-register or decode-body.")
    var operation: BudgetOperation

    @Option(help: "How many operations to perform.")
    var count: Int

    @Option(help: "Records made ready before the operations (cards to retrieve, schedules to charge); the same in both counted runs. At least --count.")
    var prepared: Int?

    @Option(help: "Allocates and frees this many small arrays per operation: extra work that shows the guard fails when an operation grows.")
    var addAllocationLoop = 0

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more.") }
        guard (prepared ?? count) >= count else { throw ValidationError("--prepared must be at least --count.") }
        guard addAllocationLoop >= 0 else { throw ValidationError("--add-allocation-loop must be 0 or more.") }
    }

    func run() throws {
        let workload = BudgetWorkload(
            operation: operation, count: count, prepared: prepared ?? count, extraWork: AllocationLoop(arrays: addAllocationLoop))
        try waitFor { try await workload.run() }
    }
}

/// Runs `body` on Swift's concurrency pool and blocks the calling main thread until it ends.
///
/// Not an `async` entry point: that parks the main thread in `dispatch_main`, whose
/// `rt_sigsuspend` passes a signal mask in read-only memory, and Valgrind 3.19 (Debian 12) writes
/// to that mask and dies. The main thread is not one of the pool's, so blocking it holds no task up.
func waitFor(_ body: @escaping @Sendable () async throws -> Void) throws {
    let outcome = Mutex<Result<Void, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<Void, any Error>
        do {
            try await body()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    try outcome.withLock { $0 }?.get()
}
