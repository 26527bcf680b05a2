import Synchronization

/// Single-item writes of one kind, made by many tasks at once, gathered into shared writes: one
/// write for every item that arrived while the previous write was being made, instead of one each.
///
/// A write pays for itself whatever it carries: on SQLite a job and a savepoint on the single
/// writer thread, on PostgreSQL a statement, a round trip and a commit (a WAL flush). A stream of
/// small concurrent writes (the sandbox gateway's calls during a charge run) costs much more one
/// by one than gathered. Each item still ends written or failed on its own, and a caller returns
/// only once its item's write has returned (committed). At most `writesInFlight` writes are made
/// at once: while one is being made, the next gathers.
public final class GroupedWrites<Item: Sendable, Value: Sendable>: Sendable {
    private struct Waiting {
        var item: Item
        var continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writesInFlight = 0
        /// Items taken into a write whose callers have not been answered yet.
        var beingWritten = 0
    }

    private let writeItems: @Sendable ([Item]) async throws -> [Result<Value, any Error>]
    private let writesInFlight: Int
    private let itemsPerWrite: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - writesInFlight: writes made at once (at least 1).
    ///   - itemsPerWrite: the most items one write carries (at least 1); the rest wait for the next.
    ///   - write: writes the items given and returns one result per item, in their order; throwing
    ///     fails every item of that write.
    public init(writesInFlight: Int = 2, itemsPerWrite: Int = .max,
                _ write: @escaping @Sendable ([Item]) async throws -> [Result<Value, any Error>]) {
        self.writeItems = write
        self.writesInFlight = max(1, writesInFlight)
        self.itemsPerWrite = max(1, itemsPerWrite)
    }

    /// Writes `item` in the next shared write and returns its value once that write has returned.
    /// - Throws: the item's own error (nothing of it written), or the write's as a whole (a failed
    ///   commit, a closed database: then no item of that write was written).
    public func write(_ item: Item) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriting = state.withLock { state in
                state.waiting.append(Waiting(item: item, continuation: continuation))
                guard state.writesInFlight < writesInFlight else { return false }
                state.writesInFlight += 1
                return true
            }
            if startsWriting {
                Task { await self.writeWaiting() }
            }
        }
    }

    /// Writes made and not yet answered, waiting or taken into a write; for tests.
    public var unansweredCount: Int { state.withLock { $0.waiting.count + $0.beingWritten } }

    /// Writes what is waiting, write after write, until nothing is.
    private func writeWaiting() async {
        while true {
            let taken = state.withLock { state in
                let taken: [Waiting]
                if state.waiting.count <= itemsPerWrite {
                    taken = state.waiting
                    state.waiting = []
                } else {
                    taken = Array(state.waiting.prefix(itemsPerWrite))
                    state.waiting.removeFirst(itemsPerWrite)
                }
                state.beingWritten += taken.count
                if taken.isEmpty { state.writesInFlight -= 1 }
                return taken
            }
            guard !taken.isEmpty else { return }
            let results: [Result<Value, any Error>]
            do {
                results = try await writeItems(taken.map(\.item))
            } catch {
                results = taken.map { _ in .failure(error) }
            }
            precondition(results.count == taken.count, "a grouped write answered \(results.count) results for \(taken.count) items")
            state.withLock { $0.beingWritten -= taken.count }
            for (waiting, result) in zip(taken, results) {
                waiting.continuation.resume(with: result)
            }
        }
    }
}
