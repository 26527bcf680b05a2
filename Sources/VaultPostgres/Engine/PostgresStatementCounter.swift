import Synchronization

/// Counts the statements (round trips, `BEGIN` and `COMMIT` included) the engine sends while a
/// task runs with a counter bound, e.g. to pin how many a registration takes:
/// `try await PostgresStatementCounter.$current.withValue(counter) { ... }`.
///
/// Every statement of the engine goes through `PostgresConnection.checkedQuery` or, prepared once
/// per connection, `preparedRows`, which count each execution here (a preparation's own round
/// trip, once per connection, is not counted). Work the store defers to a task of its own (the audit events of card-data reads) is not
/// counted. Unbound (always, outside tests), it costs one task-local lookup per statement.
public final class PostgresStatementCounter: Sendable {
    /// The counter of the running task, if any.
    @TaskLocal public static var current: PostgresStatementCounter?

    private let counted = Atomic(0)
    private let texts = Mutex<[String]>([])

    /// A counter at zero.
    public init() {}

    /// Statements counted so far.
    public var count: Int { counted.load(ordering: .relaxed) }

    /// Their SQL texts in the order sent (values bound, never inlined, so no data is kept).
    public var statements: [String] { texts.withLock { $0 } }

    func record(_ sql: String) {
        counted.add(1, ordering: .relaxed)
        texts.withLock { $0.append(sql) }
    }
}
