import Foundation
import PostgresNIO
import Synchronization
import VaultPostgres
import VaultSQLite

extension TestDatabase {
    /// Makes the database refuse one kind of write for the rows `condition` picks (a `BEFORE`
    /// trigger raising an error; `event` as `INSERT ON transactions` or `UPDATE OF status ON
    /// schedule_steps`, `condition` over `NEW`), as a full disk or a constraint would.
    public func refuse(_ name: String, _ event: String, when condition: String) async throws {
        switch engine {
        case .sqlite:
            try await sql.run("CREATE TRIGGER \(unescaped: name) BEFORE \(unescaped: event) WHEN \(unescaped: condition) BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        case .postgres:
            try await sql.runAll([
                "CREATE OR REPLACE FUNCTION \(unescaped: name)_raise() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql",
                """
                CREATE TRIGGER \(unescaped: name) BEFORE \(unescaped: event) FOR EACH ROW WHEN (\(unescaped: condition)) \
                EXECUTE FUNCTION \(unescaped: name)_raise()
                """,
            ])
        }
    }

    /// Drops a trigger made by ``refuse(_:_:when:)``.
    public func stopRefusing(_ name: String, _ event: String) async throws {
        switch engine {
        case .sqlite:
            try await sql.run("DROP TRIGGER \(unescaped: name)")
        case .postgres:
            let table = event.components(separatedBy: " ON ").last ?? event
            try await sql.run("DROP TRIGGER \(unescaped: name) ON \(unescaped: table)")
        }
    }
}

extension TestDatabase {
    /// Holds the writes to `table` until ``WriteHold/release()``: on PostgreSQL another
    /// connection's transaction holds the table in `SHARE` mode (inserts and updates wait for it);
    /// on SQLite a write body holds the one writer thread (every write waits). Returns once held.
    public func holdWrites(to table: String) async throws -> WriteHold {
        let hold = WriteHold()
        switch location {
        case .sqlite:
            guard let database = sqlite?.database else { throw WriteHold.NoStore() }
            hold.task.withLock { $0 = Task {
                try await database.write { _ in
                    hold.held.withLock { $0 = true }
                    while !hold.released.withLock({ $0 }) { usleep(1_000) }
                }
            } }
        case .postgres:
            guard let other = try await openAnother() as? PostgresStore else { throw WriteHold.NoStore() }
            hold.task.withLock { $0 = Task {
                defer { other.close() }
                try await other.write { write in
                    _ = try await write.run(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN SHARE MODE"))
                    hold.held.withLock { $0 = true }
                    while !hold.released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                }
            } }
        }
        // A hold that never takes (its transaction failed) fails the test instead of hanging it.
        for _ in 0..<30_000 where !hold.held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        guard hold.held.withLock({ $0 }) else { throw WriteHold.NoStore() }
        return hold
    }
}

/// Writes held by ``TestDatabase/holdWrites(to:)``.
public final class WriteHold: Sendable {
    fileprivate let held = Mutex(false)
    fileprivate let released = Mutex(false)
    fileprivate let task = Mutex<Task<Void, any Error>?>(nil)

    /// The database has no store of the kind its location names, or its hold never took.
    struct NoStore: Error {}

    /// Lets the held writes go on, and returns once the holding transaction has ended.
    public func release() async throws {
        released.withLock { $0 = true }
        try await task.withLock { $0 }?.value
    }
}

/// Suspends until `condition` holds; polls state, so the outcome never depends on timing.
public func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() {
        try await Task.sleep(for: .milliseconds(1))
    }
}
