import Foundation
import StorageTestSupport
import Testing
import VaultSQLite

/// The two engines' schemas, as stored after every migration, hold the same tables, the same
/// columns with compatible types and the same NOT NULL, unique keys and indexes, except for the
/// differences listed in ``SchemaParityTests/allowed`` with the reason each is deliberate.
///
/// It needs both engines at once, so it runs in the PostgreSQL pass (`VAULT_TEST_ENGINE=postgres`)
/// with a SQLite file opened beside the PostgreSQL database.
@Suite("Store conformance: schema parity")
struct SchemaParityTests {
    /// SQLite's declared type and the PostgreSQL types that store the same values the same way.
    static let compatibleTypes: [String: Set<String>] = [
        "TEXT": ["text"],
        "INTEGER": ["bigint", "integer", "smallint"],
        "BLOB": ["bytea"],
        "REAL": ["double precision"],
    ]

    /// Differences that exist on purpose, each with why.
    static let allowed: [String: String] = [
        "table audit_chains: only on PostgreSQL": perMerchantChains,
        "column audit_events.chain: only on PostgreSQL": perMerchantChains,
        "column audit_events.chain_seq: only on PostgreSQL": perMerchantChains,
        "unique audit_events(chain, chain_seq): only on PostgreSQL": perMerchantChains,
        "index schedule_steps(status, due_at, seq): only on PostgreSQL": claimOrder,
        "index schedule_steps(status, next_attempt_at, seq): only on PostgreSQL": claimOrder,
        "index schedule_steps(due_at) WHERE ...: only on SQLite": openStepsByStatus,
        "index schedule_steps(next_attempt_at) WHERE ...: only on SQLite": openStepsByStatus,
        "index schedule_steps(merchant_id, seq) WHERE ...: only on SQLite": openStepsByStatus,
        "index schedule_steps(merchant_id, status): only on PostgreSQL": openStepsByStatus,
        "table request_limits: only on PostgreSQL":
            "request-rate buckets shared by every server on one database; a SQLite file has one server, which keeps them in memory",
    ]

    static let claimOrder =
        "a claim leases due steps in (due time, seq) order, a batch at a time: SQLite's index entries end with the rowid, "
        + "which is seq, so its partial (due_at) index of each status gives that order; PostgreSQL's index needs seq named to read it without a sort"

    static let openStepsByStatus =
        "SQLite keeps the steps a run claims in one partial index per status (read in due order: its entries end with the "
        + "rowid, which is seq) and the steps in review in another, so a charged step's two moves write 3 index entries on "
        + "its single writer instead of 12; PostgreSQL, with no single writer, keeps its indexes over every step"

    static let perMerchantChains =
        "PostgreSQL keeps one audit chain per merchant (and overflow chains) with its head in audit_chains, so servers append "
        + "at once; SQLite has one writer and one chain whose order is seq"

    /// What differs between the two schemas, one line each.
    static func differences(sqlite: StoredSchema, postgres: StoredSchema) -> [String] {
        var found: [String] = []
        for name in Set(sqlite.tables.keys).union(postgres.tables.keys).sorted() {
            guard let left = sqlite.tables[name] else { found.append("table \(name): only on PostgreSQL"); continue }
            guard let right = postgres.tables[name] else { found.append("table \(name): only on SQLite"); continue }
            for column in Set(left.columns.keys).union(right.columns.keys).sorted() {
                guard let l = left.columns[column] else { found.append("column \(name).\(column): only on PostgreSQL"); continue }
                guard let r = right.columns[column] else { found.append("column \(name).\(column): only on SQLite"); continue }
                if !(compatibleTypes[l.type] ?? []).contains(r.type) {
                    found.append("column \(name).\(column): type \(l.type) on SQLite, \(r.type) on PostgreSQL")
                }
                if l.notNull != r.notNull {
                    found.append("column \(name).\(column): NOT NULL only on \(l.notNull ? "SQLite" : "PostgreSQL")")
                }
            }
            for index in left.uniques.subtracting(right.uniques).sorted() { found.append("unique \(name)\(index): only on SQLite") }
            for index in right.uniques.subtracting(left.uniques).sorted() { found.append("unique \(name)\(index): only on PostgreSQL") }
            for index in left.indexes.subtracting(right.indexes).sorted() { found.append("index \(name)\(index): only on SQLite") }
            for index in right.indexes.subtracting(left.indexes).sorted() { found.append("index \(name)\(index): only on PostgreSQL") }
        }
        return found
    }

    @Test(.enabled(if: TestEngine.current == .postgres, "needs both engines at once: runs in the PostgreSQL pass, with a SQLite file beside it"))
    func bothEnginesStoreTheSameTablesColumnsConstraintsAndIndexesAfterAllMigrations() async throws {
        let directory = TemporaryDirectory()
        let sqliteStore = try SQLiteStore(path: directory.file("parity.sqlite"))
        defer { sqliteStore.close() }
        let postgres = try await TestDatabase(path: directory.file("unused.sqlite"), engine: .postgres)
        let sqlite = try await StoredSchema.sqlite(TestSQL(sqliteStore))
        let stored = try await StoredSchema.postgres(postgres.sql)
        #expect(!sqlite.tables.isEmpty && !stored.tables.isEmpty)
        let found = Self.differences(sqlite: sqlite, postgres: stored)
        for difference in found where Self.allowed[difference] == nil {
            Issue.record("schema drift: \(difference)")
        }
        for (difference, _) in Self.allowed where !found.contains(difference) {
            Issue.record("allowed difference no longer exists (remove it from the list): \(difference)")
        }
    }

    @Test func aTypeMismatchAMissingColumnAndAMissingIndexAreFound() {
        var sqlite = StoredSchema()
        sqlite.tables["t"] = StoredSchema.Table(
            columns: ["id": .init(type: "TEXT", notNull: true), "n": .init(type: "INTEGER", notNull: false), "gone": .init(type: "TEXT", notNull: false)],
            uniques: [.init(columns: ["id"], partial: false)], indexes: [.init(columns: ["n"], partial: false)])
        var postgres = StoredSchema()
        postgres.tables["t"] = StoredSchema.Table(
            columns: ["id": .init(type: "text", notNull: true), "n": .init(type: "text", notNull: true)],
            uniques: [.init(columns: ["id"], partial: false)], indexes: [])
        #expect(Self.differences(sqlite: sqlite, postgres: postgres) == [
            "column t.gone: only on SQLite",
            "column t.n: type INTEGER on SQLite, text on PostgreSQL",
            "column t.n: NOT NULL only on PostgreSQL",
            "index t(n): only on SQLite",
        ])
    }
}
