import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// Migration 10 writes the IN-list CHECK constraints of the tables every charge writes as
/// comparisons: the same constraints, without a temporary index built on every write.
@Suite(.sqliteOnly("SQLite migration 10 and its query plans (EXPLAIN opcodes, integrity_check); PostgreSQL's schema is its own")) struct CheckListRewriteTests {
    static let hotColumns: [(table: String, column: String, valid: String)] = [
        ("transactions", "type", "sale"), ("transactions", "status", "pending"), ("schedule_steps", "status", "scheduled"),
        ("schedules", "status", "active"), ("webhook_events", "status", "pending"),
    ]

    @Test func aListOfLiteralsOverSeveralLinesBecomesComparisonsAndOtherChecksStay() {
        let sql = """
            CREATE TABLE t (
                status TEXT NOT NULL CHECK (status IN ('pending', 'approved',
                    'in_doubt')),
                kind TEXT CHECK(kind IN ('a','b','c')),
                amount INTEGER NOT NULL CHECK (amount >= 0),
                other TEXT CHECK (other IN ('x', 'y', 'z'))
            )
            """
        let (rewritten, columns) = SQLiteConnection.checkListsAsComparisons(sql, columns: ["status", "kind"])
        #expect(columns == ["status", "kind"])
        #expect(rewritten == """
            CREATE TABLE t (
                status TEXT NOT NULL CHECK (status = 'pending' OR status = 'approved' OR status = 'in_doubt'),
                kind TEXT CHECK (kind = 'a' OR kind = 'b' OR kind = 'c'),
                amount INTEGER NOT NULL CHECK (amount >= 0),
                other TEXT CHECK (other IN ('x', 'y', 'z'))
            )
            """)
    }

    static func tableSQL(_ database: SQLiteDatabase, _ table: String) throws -> String {
        try database.readNow { try $0.queryOne(
            """
            SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = \(table)
            """)?.string("sql") } ?? ""
    }

    @Test func theChargeTablesCheckTheSameValuesWithoutATemporaryIndex() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: Schema.migrations)
            defer { database.close() }
            #expect(try database.appliedMigrations.contains(10))
            for (table, column, valid) in Self.hotColumns {
                let sql = try Self.tableSQL(database, table)
                #expect(!sql.contains("\(column) IN ("), "\(table).\(column)")
                #expect(sql.contains("\(column) = '\(valid)' OR "), "\(table).\(column)")
            }
            let null = SQLiteValue.null
            let inserts: [SQLiteQuery] = [
                """
                INSERT INTO webhook_events (id, merchant_id, type, payload, status, next_attempt_at, created_at, expires_at)
                VALUES (\(null), \(null), \(null), \(null), \(null), \(null), \(null), \(null))
                """,
                "UPDATE schedule_steps SET status = \(null) WHERE id = \(null)", "UPDATE schedules SET status = \(null) WHERE id = \(null)",
                "UPDATE transactions SET status = \(null), type = \(null) WHERE id = \(null)",
            ]
            for sql in inserts {
                let opcodes = try database.readNow { connection in
                    try connection.query("EXPLAIN " + sql).map { try $0.string("opcode") }
                }
                #expect(!opcodes.contains("OpenEphemeral"), "\(sql.sql)")
            }
            #expect(try database.readNow { try $0.queryOne("PRAGMA integrity_check")?.string("integrity_check") } == "ok")
        }
    }

    @Test func valuesOutsideTheListsAreStillRefused() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: Schema.migrations)
            defer { database.close() }
            try database.writeNow { connection in
                try connection.run(
                    """
                    INSERT INTO merchants (id, seq, name, status, gateway, time_zone, created_at, updated_at)
                    VALUES ('m', 1, 'm', 'active', 'sandbox', 'UTC', 't', 't')
                    """)
            }
            func event(_ id: String, status: String) -> SQLiteQuery {
                """
                INSERT INTO webhook_events (id, merchant_id, type, payload, status, next_attempt_at, created_at, expires_at)
                VALUES (\(id), 'm', 'x', '{}', \(status), 't', 't', 't')
                """
            }
            try database.writeNow { try $0.run(event("e1", status: "pending")) }
            let refused = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run(event("e2", status: "pendingx")) }
            }
            #expect(refused?.isConstraintViolation == true)
            let lowercase = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run(event("e3", status: "PENDING")) }
            }
            #expect(lowercase?.isConstraintViolation == true)
        }
    }

    @Test func upgradingADatabaseWithRowsKeepsThemAndItsIntegrity() async throws {
        try await withTemporaryDatabasePath { path in
            let before = try SQLiteDatabase(path: path, migrations: Array(Schema.migrations.prefix { $0.id < 10 }))
            try before.writeNow { connection in
                try connection.run(
                    """
                    INSERT INTO merchants (id, seq, name, status, gateway, time_zone, created_at, updated_at)
                    VALUES ('m', 1, 'm', 'active', 'sandbox', 'UTC', 't', 't')
                    """)
                for number in 0..<50 {
                    try connection.run(
                        """
                        INSERT INTO webhook_events (id, merchant_id, type, payload, status, next_attempt_at, created_at,
                            expires_at) VALUES (\("e\(number)"), 'm', 'x', '{}', 'pending', 't', 't', 't')
                        """)
                }
            }
            #expect(try Self.tableSQL(before, "webhook_events").contains("status IN ("))
            before.close()

            let after = try SQLiteDatabase(path: path, migrations: Schema.migrations)
            defer { after.close() }
            #expect(try after.appliedMigrations.contains(10))
            #expect(!(try Self.tableSQL(after, "webhook_events").contains("status IN (")))
            #expect(try after.readNow { try $0.queryOne("SELECT count(*) AS n FROM webhook_events WHERE status = 'pending'")?.int("n") } == 50)
            #expect(try after.readNow { try $0.queryOne("PRAGMA integrity_check")?.string("integrity_check") } == "ok")
            try after.writeNow { try $0.run("UPDATE webhook_events SET status = 'delivered' WHERE id = 'e1'") }
        }
    }
}
