import Foundation
import PostgresNIO
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// The engine's hot statements are prepared once per connection and executed by name after: the
/// server's own view of one connection (`pg_prepared_statements`) shows each prepared once and
/// executed every time; nils keep their types across executions; a failed execution leaves the
/// statement usable; a failed preparation, a lost connection or a new one prepares again.
@Suite("PostgreSQL: statements prepared once per connection", .postgres)
struct PostgresPreparedStatementTests {
    static let logger = PostgresTestDatabase.logger

    /// A store over a fresh database whose pool has one connection: every statement of the test
    /// runs on the same backend.
    func withOneConnection(_ body: (PostgresStore) async throws -> Void) async throws {
        try await PostgresTestDatabase.withDatabase { url in
            var single = url
            single.maximumConnections = 1
            let store = try await PostgresStore(url: single, logger: Self.logger)
            defer { store.close() }
            try await body(store)
        }
    }

    /// The statements prepared on the store's (one) connection: text, and executions the server
    /// planned (custom and generic plans; statements without a plan, such as `BEGIN`, count none).
    func prepared(on store: PostgresStore) async throws -> [(sql: String, executions: Int)] {
        try await store.readStatement { connection in
            try await connection.rows(
                "SELECT statement, (generic_plans + custom_plans)::bigint AS executions FROM pg_prepared_statements WHERE NOT from_sql",
                logger: Self.logger
            ).map { (try $0.string("statement"), try $0.int("executions")) }
        }
    }

    func registration(_ reference: String) -> SecureCardRegistration {
        SecureCardRegistration(
            merchantReference: reference,
            source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace", cvv: nil)),
            customer: Customer(email: "ada@example.com", country: "GB"), verify: false)
    }

    @Test func registrationsOnOneConnectionPrepareEachStatementOnceAndExecuteItEveryTime() async throws {
        try await withOneConnection { store in
            let keyring = try await PostgresTestDatabase.openKeyring(over: store, masterKey: try SecureBytes.random(count: 32))
            let merchants = MerchantService(
                store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox",
                gateways: MerchantGatewayRules([(name: "sandbox", credentialNames: [])]))
            let (merchant, _) = try await merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
            let cards = SecureCardService(store: store, keyring: keyring, verifier: VerifiedCards())
            let registrations = 20
            for index in 0..<registrations {
                _ = try await cards.register(registration("card-\(index)"), merchant: merchant, actor: "test")
            }
            let statements = try await prepared(on: store)
            // Each text prepared once on the connection, whatever ran on it.
            #expect(Set(statements.map { $0.sql }).count == statements.count)
            let insert = statements.filter { $0.sql.contains("INSERT INTO secure_cards") }
            #expect(insert.count == 1)
            #expect(insert.first?.executions == registrations)
            // The registration's other statements: its read, the chain head's lock, the audit event with the head.
            for part in ["FROM custom_field_definitions", "FOR UPDATE SKIP LOCKED", "INSERT INTO audit_events"] {
                let matching = statements.filter { $0.sql.contains(part) }
                #expect(matching.count == 1, "\(part)")
                #expect((matching.first?.executions ?? 0) >= registrations, "\(part)")
            }
            #expect(statements.contains { $0.sql == "BEGIN READ WRITE" } && statements.contains { $0.sql == "COMMIT" })
        }
    }

    @Test func aStatementPreparedWithNilsTakesValuesOfEveryBoundTypeLater() async throws {
        try await withOneConnection { store in
            try await store.write {
                try await $0.run("CREATE TABLE prepared_probe (id bigint, n integer, label text, bytes bytea, at timestamptz, tags text[], doc jsonb)")
            }
            func insert(_ id: Int, _ n: Int?, _ label: String?, _ bytes: [UInt8]?, _ at: Date?, _ tags: [String]?, _ doc: String?) async throws {
                try await store.write { write in
                    try await write.run(
                        prepared: """
                        INSERT INTO prepared_probe (id, n, label, bytes, at, tags, doc)
                        VALUES (\(id), \(n), \(label), \(bytea(bytes)), \(at), \(tags), \(doc)::jsonb)
                        """)
                }
            }
            // First with every optional nil (the server would type `n` integer, `bytes` bytea from
            // the context), then with values of the Swift types the engine binds.
            try await insert(1, nil, nil, nil, nil, nil, nil)
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            try await insert(2, 7, "seven", [0, 255, 7], at, ["a", "b"], #"{"k": 1}"#)
            try await insert(3, nil, "three", nil, at, nil, nil)
            let rows = try await store.readStatement { connection in
                try await connection.rows(
                    "SELECT id, n, label, bytes, extract(epoch FROM at)::bigint AS at, array_to_string(tags, ',') AS tags, doc->>'k' AS k FROM prepared_probe ORDER BY id",
                    logger: Self.logger)
            }
            #expect(rows.count == 3)
            #expect(try rows[0].optionalInt("n") == nil && rows[0].optionalString("label") == nil && rows[0].optionalBlob("bytes") == nil)
            #expect(try rows[1].optionalInt("n") == 7 && rows[1].optionalString("label") == "seven" && rows[1].optionalBlob("bytes") == [0, 255, 7])
            #expect(try rows[1].optionalInt64("at") == 1_700_000_000 && rows[1].optionalString("tags") == "a,b" && rows[1].optionalString("k") == "1")
            #expect(try rows[2].optionalInt("n") == nil && rows[2].optionalString("label") == "three" && rows[2].optionalInt64("at") == 1_700_000_000)
        }
    }

    @Test func aNilIsBoundAsANullOfItsSwiftTypeAndAValueAsBefore() {
        let none: Int? = nil
        let some: Int? = 4
        let text: String? = nil
        let nulls: PostgresQuery = "SELECT \(none), \(text), \(some)"
        #expect(nulls.sql == "SELECT $1::BIGINT, $2::TEXT, $3")
        #expect(nulls.binds.count == 3)
    }

    @Test func aFailedExecutionLeavesThePreparedStatementUsableOnItsConnection() async throws {
        try await withOneConnection { store in
            try await store.write { try await $0.run("CREATE TABLE prepared_unique (id text PRIMARY KEY)") }
            func insert(_ id: String) async throws {
                try await store.write { try await $0.run(prepared: "INSERT INTO prepared_unique (id) VALUES (\(id))") }
            }
            try await insert("a")
            // A unique violation of the prepared statement is still mapped, and rolls back its transaction.
            for _ in 0..<2 {
                await #expect(throws: PostgresStoreError.uniqueViolation(constraint: "prepared_unique_pkey")) { try await insert("a") }
            }
            try await insert("b")
            let statements = try await prepared(on: store).filter { $0.sql.contains("INSERT INTO prepared_unique") }
            #expect(statements.count == 1)
            let rows = try await store.readStatement {
                try await $0.row("SELECT count(*)::bigint AS n FROM prepared_unique", logger: Self.logger)?.int("n")
            }
            #expect(rows == 2)
        }
    }

    @Test func aStatementWhosePreparationFailedIsPreparedAgainOnAFreshConnection() async throws {
        try await withOneConnection { store in
            let probe: PostgresQuery = "SELECT 'prepared after a failure' AS answer"
            // First sent inside a transaction already failed: the server refuses to parse it (25P02).
            await #expect(throws: (any Error).self) {
                try await store.write { write in
                    _ = try? await write.run("SELECT 1 / 0")
                    try await write.run(prepared: probe)
                }
            }
            // postgres-nio remembers a failed preparation per connection: the engine closed that
            // connection, and the pool's next one prepares the statement afresh.
            let answer = try await store.readStatement { try await $0.row(prepared: probe, logger: Self.logger)?.string("answer") }
            #expect(answer == "prepared after a failure")
        }
    }

    /// A new table `name` of one row and the `SELECT *` over it, read once through the store so
    /// the statement is prepared on its one connection.
    func preparedOneRowTable(_ name: String, on store: PostgresStore) async throws -> PostgresQuery {
        try await store.write { try await $0.run(PostgresQuery(unsafeSQL: "CREATE TABLE \(name) (id bigint)")) }
        try await store.write { try await $0.run(PostgresQuery(unsafeSQL: "INSERT INTO \(name) (id) VALUES (1)")) }
        let probe = PostgresQuery(unsafeSQL: "SELECT * FROM \(name)")
        let before = try await store.readStatement { try await $0.rows(prepared: probe, logger: Self.logger).count }
        #expect(before == 1)
        return probe
    }

    @Test func aReadWhoseTableGainedAColumnRunsAgainOnAFreshConnectionWithoutFailing() async throws {
        try await withOneConnection { store in
            let probe = try await preparedOneRowTable("prepared_widened", on: store)
            // A migration meanwhile (as by another server): the statement's result has a column more,
            // which the server refuses for a prepared statement (0A000); the read runs once more on a
            // fresh connection, where the statement is prepared again, and the caller sees no error.
            try await store.write { try await $0.run("ALTER TABLE prepared_widened ADD COLUMN note text") }
            var runs = 0
            let widened = try await store.readStatement { connection in
                runs += 1
                return try await connection.row(prepared: probe, logger: Self.logger)?.has("note")
            }
            #expect(widened == true)
            #expect(runs == 2)
        }
    }

    @Test func aTransactionWhoseTableGainedAColumnFailsOnceThenRunsOnAFreshConnection() async throws {
        try await withOneConnection { store in
            let probe = try await preparedOneRowTable("prepared_widened_tx", on: store)
            try await store.write { try await $0.run("ALTER TABLE prepared_widened_tx ADD COLUMN note text") }
            await #expect(throws: (any Error).self) {
                _ = try await store.read { try await $0.rows(prepared: probe, logger: Self.logger).count }
            }
            let widened = try await store.read { try await $0.row(prepared: probe, logger: Self.logger)?.has("note") }
            #expect(widened == true)
        }
    }

    @Test func aLostConnectionsStatementsArePreparedAgainOnTheNextConnection() async throws {
        try await withOneConnection { store in
            let probe: PostgresQuery = "SELECT 42 AS n"
            let first = try await store.readStatement { try await $0.row(prepared: probe, logger: Self.logger)?.int("n") }
            #expect(first == 42)
            let before = try await store.readStatement { try await $0.row("SELECT pg_backend_pid() AS pid", logger: Self.logger)?.int("pid") }
            var runs = 0
            let answer = try await store.readStatement { connection in
                runs += 1
                if runs == 1 {
                    // The server ends the connection that prepared the statement (57P01).
                    try await connection.run("SELECT pg_terminate_backend(pg_backend_pid())", logger: Self.logger)
                }
                return try await connection.row(prepared: probe, logger: Self.logger)?.int("n")
            }
            #expect(runs == 2)
            #expect(answer == 42)
            let after = try await store.readStatement { try await $0.row("SELECT pg_backend_pid() AS pid", logger: Self.logger)?.int("pid") }
            #expect(after != before)
            let statements = try await prepared(on: store)
            #expect(statements.filter { $0.sql == probe.sql }.count == 1)
        }
    }

    @Test func aPreparedStatementIsCountedOncePerExecution() async throws {
        try await withOneConnection { store in
            let counter = PostgresStatementCounter()
            try await PostgresStatementCounter.$current.withValue(counter) {
                for _ in 0..<3 {
                    _ = try await store.readStatement { try await $0.row(prepared: "SELECT 1 AS one", logger: Self.logger) }
                }
            }
            #expect(counter.count == 3)
            #expect(counter.statements == Array(repeating: "SELECT 1 AS one", count: 3))
        }
    }

    @Test func textsPastTheLimitAreLeftUnnamedAndNamedTextsKeepTheirNames() {
        let names = PostgresStatementNames(limit: 2)
        let first = names.name(for: "SELECT 1")
        let second = names.name(for: "SELECT 2")
        #expect(first != nil && second != nil && first != second)
        #expect(names.name(for: "SELECT 3") == nil)
        #expect(names.name(for: "SELECT 1") == first)
    }
}
