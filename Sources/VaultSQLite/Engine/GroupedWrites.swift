import Synchronization

/// Single-item writes of one kind, made by many tasks at once, gathered into shared write bodies
/// (``SQLiteDatabase/writeEach(_:_:)``): one write job and one savepoint for every item that
/// arrived while the previous body was being written, instead of one each.
///
/// A write body pays for its job and its savepoint (which copies every page the body changes), so
/// a stream of small concurrent writes (the sandbox gateway's calls during a charge run) costs the
/// single writer thread much more one by one than gathered. Each item still ends written or failed
/// on its own, and a caller returns only once its item is committed. At most `bodiesInFlight`
/// bodies are queued at once: while the writer commits one, the next gathers.
final class GroupedWrites<Item: Sendable, Value: Sendable>: Sendable {
    private struct Waiting {
        var item: Item
        var continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var bodiesInFlight = 0
        /// Writes taken into a body whose callers have not been answered yet.
        var beingWritten = 0
    }

    private let database: SQLiteDatabase
    private let makeBody: @Sendable (SQLiteConnection) -> (Item) throws -> Value
    private let bodiesInFlight: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - makeBody: as for `writeEach`: called once per body on the writer thread; returns what
    ///     writes one item.
    ///   - bodiesInFlight: write bodies queued at once (at least 1).
    init(database: SQLiteDatabase, bodiesInFlight: Int = 2, _ makeBody: @escaping @Sendable (SQLiteConnection) -> (Item) throws -> Value) {
        self.database = database
        self.makeBody = makeBody
        self.bodiesInFlight = max(1, bodiesInFlight)
    }

    /// Writes `item` in the next shared body and returns its value once that body is committed.
    /// - Throws: the item's own error (nothing of it written), or the write's as a whole (a failed
    ///   commit, a closed database: then no item of that body was written).
    func write(_ item: Item) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let startsBody = state.withLock { state in
                state.waiting.append(Waiting(item: item, continuation: continuation))
                guard state.bodiesInFlight < bodiesInFlight else { return false }
                state.bodiesInFlight += 1
                return true
            }
            if startsBody {
                Task { await self.writeWaiting() }
            }
        }
    }

    /// Writes made and not yet answered, waiting or taken into a body; for tests.
    var unansweredCount: Int { state.withLock { $0.waiting.count + $0.beingWritten } }

    /// Writes what is waiting, body after body, until nothing is.
    private func writeWaiting() async {
        while true {
            let taken = state.withLock { state in
                let taken = state.waiting
                state.waiting = []
                state.beingWritten += taken.count
                if taken.isEmpty { state.bodiesInFlight -= 1 }
                return taken
            }
            guard !taken.isEmpty else { return }
            let results: [Result<Value, any Error>]
            do {
                results = try await database.writeEach(taken.map(\.item), makeBody)
            } catch {
                results = taken.map { _ in .failure(error) }
            }
            state.withLock { $0.beingWritten -= taken.count }
            for (waiting, result) in zip(taken, results) {
                waiting.continuation.resume(with: result)
            }
        }
    }
}
