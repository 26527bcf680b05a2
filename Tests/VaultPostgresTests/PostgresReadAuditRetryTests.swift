import Foundation
import PostgresNIO
import StorageTestSupport
import Synchronization
import Testing
import Vault
@testable import VaultPostgres

/// Card-data reads are audited by a write after the answer. A write that fails (the primary lost
/// during a failover, a restart) must not drop them: the reads stay queued and are written once the
/// database accepts them again.
@Suite("PostgreSQL: read audits survive a failed write", .postgres)
struct PostgresReadAuditRetryTests {
    static func readEvents(_ store: PostgresStore) async throws -> [AuditEvent] {
        try await store.auditEvents(merchantID: nil, filter: AuditFilter(action: "secure_card.retrieved"), before: nil, limit: 50)
    }

    @Test func readsAuditedWhileTheDatabaseRefusesTheWriteAreWrittenOnceItAcceptsAgain() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            store.readAuditRetry.withLock { $0 = PostgresReadAuditRetry(first: .milliseconds(20), longest: .milliseconds(100), attempts: 400) }
            let before = try await store.auditEvents(merchantID: nil, before: nil, limit: 100).count
            try await store.write { transaction in
                // A sequence counts the refusals: `nextval` survives the refused transaction's rollback.
                try await transaction.run("CREATE SEQUENCE refusals")
                try await transaction.run(
                    """
                    CREATE FUNCTION refuse_reads() RETURNS trigger AS $$
                    BEGIN PERFORM nextval('refusals'); RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql
                    """)
                try await transaction.run(
                    """
                    CREATE TRIGGER refuse_reads BEFORE INSERT ON audit_events FOR EACH ROW
                    WHEN (NEW.action = 'secure_card.retrieved') EXECUTE FUNCTION refuse_reads()
                    """)
            }
            for number in 0..<3 {
                store.recordRead(
                    AuditEntry(merchantID: nil, actor: "apikey:ak_x", action: "secure_card.retrieved", objectType: "secure_card", objectID: "sc_\(number)"))
            }
            // Until the write was refused twice: tried again after a failure, not dropped.
            let refused = ContinuousClock.now + .seconds(20)
            var refusals = 0
            while refusals < 2, ContinuousClock.now < refused {
                try await Task.sleep(for: .milliseconds(10))
                refusals = try await store.read { connection in
                    try await connection.row("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM refusals", logger: store.logger)?
                        .int("n") ?? 0
                }
            }
            #expect(refusals >= 2)
            #expect(try await Self.readEvents(store).isEmpty)
            #expect(!store.readAudits.isIdle, "the refused reads wait to be written again")
            try await store.write { try await $0.run("DROP TRIGGER refuse_reads ON audit_events") }
            let deadline = ContinuousClock.now + .seconds(20)
            while !store.readAudits.isIdle, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let written = try await Self.readEvents(store)
            #expect(Set(written.map(\.objectID)) == ["sc_0", "sc_1", "sc_2"])
            #expect(written.count == 3, "each read once")
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(before + 3)))
        }
    }

    @Test func aWriteRefusedEveryTimeIsGivenUpAfterItsAttemptsAndTheNextReadsAreStillWritten() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            store.readAuditRetry.withLock { $0 = PostgresReadAuditRetry(first: .milliseconds(1), longest: .milliseconds(2), attempts: 3) }
            try await store.write { transaction in
                try await transaction.run(
                    """
                    CREATE FUNCTION refuse_reads() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql
                    """)
                try await transaction.run(
                    """
                    CREATE TRIGGER refuse_reads BEFORE INSERT ON audit_events FOR EACH ROW
                    WHEN (NEW.object_id = 'sc_refused') EXECUTE FUNCTION refuse_reads()
                    """)
            }
            store.recordRead(
                AuditEntry(merchantID: nil, actor: "apikey:ak_x", action: "secure_card.retrieved", objectType: "secure_card", objectID: "sc_refused"))
            let deadline = ContinuousClock.now + .seconds(20)
            while !store.readAudits.isIdle, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(store.readAudits.isIdle, "the flush ends after its attempts")
            store.recordRead(
                AuditEntry(merchantID: nil, actor: "apikey:ak_x", action: "secure_card.retrieved", objectType: "secure_card", objectID: "sc_next"))
            while !store.readAudits.isIdle, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(try await Self.readEvents(store).map(\.objectID) == ["sc_next"])
        }
    }
}
