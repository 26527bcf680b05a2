import Foundation
import PostgresNIO
import Scheduler
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// The expiry of unconfirmed schedules reads the partial index `schedules_pending` (`expires_at`
/// where the status is `pending_confirmation`): the planner can use a partial index only when the
/// query names the status as the same literal, which is why the query interpolates
/// `ScheduleStatus.pendingConfirmation.sqlLiteral` unescaped instead of binding it.
@Suite("PostgreSQL: the expiry of unconfirmed schedules reads its partial index", .postgres)
struct PostgresScheduleExpiryIndexTests {
    static func plan(_ store: PostgresStore, status: String) async throws -> String {
        try await store.read { connection in
            _ = try await connection.query("SET LOCAL enable_seqscan = off", logger: PostgresTestDatabase.logger)
            let query = PostgresQuery(unsafeSQL: """
                EXPLAIN SELECT id, merchant_id FROM schedules
                WHERE status = \(status) AND expires_at <= '2027-01-01T00:00:00.000Z'
                """)
            return try await connection.rows(query, logger: PostgresTestDatabase.logger).map { try $0.string("QUERY PLAN") }
                .joined(separator: "\n")
        }
    }

    @Test func theQuerysStatusLiteralMatchesTheIndexPredicate() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            let plan = try await Self.plan(store, status: ScheduleStatus.pendingConfirmation.sqlLiteral)
            #expect(plan.contains("schedules_pending"), "\(plan)")
            // Another status cannot use it: the predicate is what makes the index small.
            let other = try await Self.plan(store, status: ScheduleStatus.active.sqlLiteral)
            #expect(!other.contains("schedules_pending"), "\(other)")
        }
    }
}
