import Foundation
import PostgresNIO
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

@Suite("PostgreSQL engine", .postgres)
struct PostgresEngineTests {
    @Test func serversStartingTogetherApplyEachMigrationOnce() async throws {
        try await PostgresTestDatabase.withDatabase(empty: true) { url in
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresStore(url: url, logger: PostgresTestDatabase.logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            defer { stores.forEach { $0.close() } }
            let ids = PostgresSchema.migrations.map(\.id)
            for store in stores { #expect(try await store.appliedMigrations() == ids) }
            let recorded = try await stores[0].read { connection in
                try await connection.rows("SELECT id FROM schema_migrations", logger: PostgresTestDatabase.logger).map { try $0.int("id") }
            }
            #expect(recorded.sorted() == ids)
        }
    }

    @Test func migrationIDsMustIncrease() async throws {
        try await PostgresTestDatabase.withDatabase(empty: true) { url in
            let backwards = [PostgresMigration(id: 2, name: "b", statements: []), PostgresMigration(id: 1, name: "a", statements: [])]
            await #expect(throws: PostgresStoreError.self) {
                _ = try await PostgresStore(url: url, logger: PostgresTestDatabase.logger, migrations: backwards)
            }
        }
    }

    @Test func aUniqueViolationIsTypedWithItsConstraint() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            try await store.write { try await $0.run("INSERT INTO meta (key, value) VALUES ('k', 'v')") }
            do {
                try await store.write { try await $0.run("INSERT INTO meta (key, value) VALUES ('k', 'w')") }
                Issue.record("a duplicate key was accepted")
            } catch {
                #expect(error as? PostgresStoreError == .uniqueViolation(constraint: "meta_pkey"))
                #expect(error.isPostgresUniqueViolation)
            }
            // Another kind of failure is not a unique violation.
            await #expect(throws: PostgresStoreError.foreignKeyViolation(constraint: "api_keys_merchant_id_fkey")) {
                try await store.write { transaction in
                    try await transaction.run(
                        "INSERT INTO api_keys (id, merchant_id, role, secret_hash, created_at) VALUES ('k', 'mer_none', 'admin', '\\x00'::bytea, 'x')")
                }
            }
        }
    }

    @Test func aFailedWriteLeavesNothingAndItsAuditEventsGoWithIt() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            struct Refused: Error {}
            let before = try await store.auditEvents(merchantID: nil, before: nil, limit: 100).count
            await #expect(throws: Refused.self) {
                try await store.write { transaction in
                    try await transaction.run("INSERT INTO meta (key, value) VALUES ('gone', 'v')")
                    try await transaction.appendAudit(AuditEntry(merchantID: nil, actor: "test", action: "a", objectType: "t", objectID: nil))
                    throw Refused()
                }
            }
            #expect(try await store.auditEvents(merchantID: nil, before: nil, limit: 100).count == before)
            let meta = try await store.read { try await $0.row("SELECT value FROM meta WHERE key = 'gone'", logger: PostgresTestDatabase.logger) }
            #expect(meta == nil)
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(before)))
        }
    }

    @Test func aSavepointRollsBackOnlyItsOwnChangesAndAuditEvents() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            struct Refused: Error {}
            let before = try await store.auditEvents(merchantID: nil, before: nil, limit: 100).count
            try await store.write { transaction in
                try await transaction.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "kept.1", objectType: "t", objectID: nil))
                await #expect(throws: Refused.self) {
                    try await transaction.savepoint { inner in
                        try await inner.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "dropped", objectType: "t", objectID: nil))
                        try await inner.appendAudit(AuditEntry(merchantID: "mer_b", actor: "test", action: "dropped", objectType: "t", objectID: nil))
                        throw Refused()
                    }
                }
                try await transaction.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "kept.2", objectType: "t", objectID: nil))
            }
            let events = try await store.auditEvents(merchantID: nil, before: nil, limit: 100)
            #expect(events.count == before + 2)
            #expect(!events.contains { $0.action == "dropped" })
            let reports = try await store.auditChainReports()
            #expect(reports.first { $0.chain == "mer_a" }?.verification == .intact(events: 2))
            #expect(!reports.contains { $0.chain == "mer_b" && $0.verification != .intact(events: 0) })
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(before + 2)))
        }
    }
}
