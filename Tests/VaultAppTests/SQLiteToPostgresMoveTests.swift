import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import PostgresNIO
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultPostgres
import VaultSQLite
@testable import VaultAppTestSupport

/// `vault migrate --from sqlite:PATH`: a SQLite vault filled through the services is copied into a
/// throwaway PostgreSQL database, every table, and reads back there (cards opened, audit chains
/// and bound rows verified); a source or destination that cannot be moved is refused before
/// anything is written.
///
/// Needs a PostgreSQL server (`VAULT_TEST_DATABASE_URL`); runs on both passes (the source is SQLite).
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["VAULT_TEST_DATABASE_URL"] ?? "").isEmpty,
        "needs a PostgreSQL server: set VAULT_TEST_DATABASE_URL (make test starts one)"))
struct SQLiteToPostgresMoveTests {
    /// Writes nothing, but keeps metadata (Hummingbird reads each request's id back from it).
    static let quiet: Logger = {
        var logger = Logger(label: "vault.test.move") { _ in InMemoryLogHandler() }
        logger.logLevel = .critical
        return logger
    }()

    /// A SQLite vault in a directory of its own, opened through the runtime as `vault serve` opens it.
    struct SourceVault {
        let directory = TemporaryDirectory()
        let configuration: VaultConfiguration

        init() {
            var configuration = VaultConfiguration()
            configuration.database.path = directory.file("vault.sqlite")
            configuration.keys.directory = directory.file("keys")
            configuration.keys.masterKeyFromEnvironment = Encoding.base64(RandomBytes.make(32))
            configuration.server.port = 0
            configuration.metrics.port = 0
            configuration.server.idleTimeoutSeconds = 300
            // Receipts are queued (never sent here: the server's deliverer is not started).
            configuration.receipts.sendmailCommand = "/bin/true"
            configuration.receipts.from = "billing@example.org"
            self.configuration = configuration
        }

        var path: String { configuration.database.path }

        /// The same keys, the PostgreSQL database `url` as the vault's database.
        func destination(_ url: PostgresURL) -> VaultConfiguration {
            var moved = configuration
            moved.database.url = url
            moved.database.maxConnections = 4
            return moved
        }
    }

    /// A card as the source stored it, to read back after the move.
    struct StoredCard: Sendable {
        var merchant: Merchant
        var reference: String
        var merchantReference: String
        var last4: String
        var fingerprint: String
        var holderName: String?
        var pan: PrimaryAccountNumber
    }

    /// Fills every table of the source through the services and the HTTP API: merchants and their
    /// keys, API keys, custom fields, cards (with their holder-name index), capture sessions,
    /// schedules and steps, a charge run, sales through the sandbox (its ledger, stored
    /// credentials), Idempotency-Keys, webhook events, the audit log and the key generation.
    static func fill(_ vault: SourceVault) async throws -> [StoredCard] {
        let runtime = try await VaultRuntime.open(configuration: vault.configuration, logger: quiet, database: .createIfMissing)
        defer { runtime.close() }
        let (merchantA, adminA) = try await runtime.merchants.create(name: "merchant-a", role: .admin, settings: .init(), actor: "test")
        let (merchantB, adminB) = try await runtime.merchants.create(name: "merchant-b", role: .admin, settings: .init(), actor: "test")
        let runner = try await runtime.merchants.issueKey(merchantName: "merchant-a", role: .runner, actor: "test").bearer
        _ = try await (runtime.store as? any KeyGenerationStore)?.advanceKeyGeneration()
        let app = try buildApplication(runtime: runtime, logger: quiet)
        try await app.test(.live) { client in
            let fields = try await client.send(
                .put, "/v1/custom-fields", key: adminA.bearer, json: #"{"fields": [{"name": "Plan", "required": false, "maxLength": 16}]}"#)
            #expect(fields.status == .ok, "\(fields.text)")
            var tokens: [String: String] = [:]
            for (key, reference) in [(adminA.bearer, "card-a1"), (adminA.bearer, "card-a2"), (adminB.bearer, "card-b1")] {
                let card = try await client.send(
                    .post, "/v1/secure-cards", key: key, json: keyedCard(reference),
                    headers: [HTTPField.Name("Idempotency-Key")!: "register-\(reference)"])
                #expect(card.status == .created, "\(card.text)")
                tokens[reference] = card.json["secureCardReference"] as? String
            }
            let tokenA2 = try #require(tokens["card-a2"])
            let session = try await client.send(
                .post, "/v1/capture-sessions", key: adminA.bearer,
                json: #"{"merchantReference": "cust-7", "allowedOrigin": "https://shop.example", "customer": {"email": "ada@example.com"}}"#)
            #expect(session.status == .created, "\(session.text)")
            let sale = try await client.send(
                .post, "/v1/transactions", key: adminA.bearer,
                json: #"{"type": "sale", "amount": 1250, "currency": "USD", "secureCardReference": "\#(tokenA2)", "receiptEmail": "payer@example.org"}"#)
            #expect(sale.status == .created || sale.status == .ok, "\(sale.text)")
            let today = String(Timestamp.string(Date()).prefix(10))
            let schedule = try await client.send(
                .post, "/v1/schedules", key: adminA.bearer,
                json: #"{"merchantReference": "card-a1", "amount": 4200, "currency": "USD", "type": "delayedOnce", "#
                    + #""startDate": "\#(today)", "hour": 0, "minute": 0, "timeZone": "UTC"}"#)
            let id = try #require(schedule.json["id"] as? String, "\(schedule.text)")
            #expect(try await client.send(.post, "/v1/schedules/\(id)/confirm", key: adminA.bearer).status == .ok)
            let run = try await client.send(.post, "/v1/charge-runs", key: runner)
            #expect(run.status == .accepted, "\(run.text)")
            _ = try await ChargeRunPolling.waitForRun(client, key: runner, id: try #require(run.json["id"] as? String))
        }
        try await enqueueWebhooks(runtime.store, [(.transactionApproved, merchantID: merchantB.id, data: ["note": .string("moved")])])
        let operators = OperatorService(store: runtime.store, keyring: runtime.keyring)
        let (_, enrollment) = try await operators.create(
            name: "ada", role: .support, merchantNames: ["merchant-a"], password: "blue kettle harbour", actor: "test")
        let secret = try Encoding.fromBase32(enrollment.secret)
        _ = try await operators.signIn(name: "ada", password: "blue kettle harbour", code: TOTP.code(secret: secret, step: TOTP.step(at: Date())))
        var cards: [StoredCard] = []
        for (merchant, reference) in [(merchantA, "card-a1"), (merchantA, "card-a2"), (merchantB, "card-b1")] {
            let card = try await runtime.cards.retrieve(merchantReference: reference, merchant: merchant)
            let opened = try await runtime.cards.cardForCharge(reference: card.reference, merchantID: merchant.id)
            cards.append(StoredCard(
                merchant: merchant, reference: card.reference, merchantReference: reference, last4: card.last4, fingerprint: card.fingerprint,
                holderName: opened.holderName, pan: opened.pan))
        }
        return cards
    }

    /// Every table of the SQLite file with its row count.
    static func sqliteTables(_ path: String) async throws -> [String: Int] {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        return try await store.database.read { connection in
            var counts: [String: Int] = [:]
            for row in try connection.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'")
            {
                let name = try row.string("name")
                counts[name] = try connection.queryOne("SELECT count(*) AS n FROM \(unescaped: name)")?.int("n") ?? 0
            }
            return counts
        }
    }

    /// A new PostgreSQL database (`empty`: without any table, as created by `createdb`), dropped after `body`.
    static func withDestination(empty: Bool, _ body: (PostgresURL) async throws -> Void) async throws {
        await PostgresTestSlots.shared.acquire()
        defer { PostgresTestSlots.shared.release() }
        try await PostgresTestDatabase.withDatabase(empty: empty) { url in try await body(url) }
    }

    /// Rows in every table of the PostgreSQL database, and how many tables it has.
    static func postgresRows(_ url: PostgresURL) async throws -> (tables: Int, rows: Int) {
        let store = try await PostgresStore(url: url, logger: quiet, migrations: [])
        defer { store.close() }
        return try await store.read { connection in
            let tables = try await connection.rows(
                """
                SELECT table_name::text AS name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_name != 'schema_migrations'
                """,
                logger: quiet
            ).map { try $0.string("name") }
            var rows = 0
            for table in tables {
                rows += try await connection.row(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \"\(table)\""), logger: quiet)?.int("n") ?? 0
            }
            return (tables.count, rows)
        }
    }

    @Test func everyTableIsCopiedAndTheCardsOpenAndTheAuditChainVerifiesThroughPostgreSQL() async throws {
        let vault = SourceVault()
        let cards = try await Self.fill(vault)
        let source = try await Self.sqliteTables(vault.path)
        for (table, rows) in source.sorted(by: { $0.key < $1.key }) where rows == 0 {
            Issue.record("table \(table) is empty in the filled SQLite vault: fill it in `fill`, so the move is shown to copy it")
        }
        try await Self.withDestination(empty: false) { url in
            let outcome = try await SQLiteMove(sourcePath: vault.path, configuration: vault.destination(url), logger: Self.quiet).run()
            let copied = Dictionary(uniqueKeysWithValues: outcome.tables.map { ($0.table, $0) })
            let rebuilt = TablePlan.rebuiltOnPostgres
            #expect(Set(copied.keys) == Set(source.keys).subtracting(rebuilt), "every SQLite table is copied, but those written again")
            for (table, rows) in source where !rebuilt.contains(table) {
                let skipped = table == "meta" ? 1 : 0  // SQLite's audit head record, replaced by the imported chain's head
                #expect(copied[table]?.destination == rows - skipped, "\(table)")
            }
            #expect(outcome.boundRows.isIntact)

            let moved = try await VaultRuntime.open(configuration: vault.destination(url), logger: Self.quiet)
            defer { moved.close() }
            #expect(moved.store is PostgresStore)
            for card in cards {
                let read = try await moved.cards.retrieve(merchantReference: card.merchantReference, merchant: card.merchant)
                #expect(read.reference == card.reference && read.last4 == card.last4 && read.fingerprint == card.fingerprint)
                let opened = try await moved.cards.cardForCharge(reference: card.reference, merchantID: card.merchant.id)
                #expect(opened.pan == card.pan)
                #expect(opened.holderName == card.holderName)
            }
            let postgres = try #require(moved.store as? PostgresStore)
            let reports = try await postgres.auditChainReports()
            let imported = try #require(reports.first { $0.chain == PostgresAuditChains.importedFromSQLite })
            #expect(imported.verification == .intact(events: Int64(source["audit_events"] ?? 0)))
            guard case .intact = try await moved.store.verifyAuditChain() else {
                Issue.record("the audit chains do not verify through PostgreSQL")
                return
            }
            // The moved vault takes writes: identities go on past the copied rows, and the
            // merchant's events go to its own chain beside the imported one.
            let registration = SecureCardRegistration(
                merchantReference: "after-move",
                source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230")), verify: false)
            _ = try await moved.cards.register(registration, merchant: cards[0].merchant, actor: "test")
            guard case .intact(let events) = try await moved.store.verifyAuditChain() else {
                Issue.record("the audit chains do not verify after a write on PostgreSQL")
                return
            }
            #expect(events > Int64(source["audit_events"] ?? 0))
            let newest = try await moved.sql.count("SELECT max(seq) AS n FROM secure_cards")
            #expect(newest > source["secure_cards"] ?? 0)
            // The copied chain is checked, not merely present: one edited event breaks it.
            try await moved.sql.run(
                "UPDATE audit_events SET details = '{}' WHERE chain = \(PostgresAuditChains.importedFromSQLite) AND chain_seq = 2")
            let tampered = try await postgres.auditChainReports().first { $0.chain == PostgresAuditChains.importedFromSQLite }
            #expect(tampered?.verification == .broken(sequence: 2, reason: "its contents do not match its hash (edited)"))
        }
    }

    @Test func aDestinationHoldingRowsIsRefusedAndLeftAsItWas() async throws {
        let vault = SourceVault()
        _ = try await Self.fill(vault)
        try await Self.withDestination(empty: true) { url in
            _ = try await SQLiteMove(sourcePath: vault.path, configuration: vault.destination(url), logger: Self.quiet).run()
            let before = try await Self.postgresRows(url)
            await #expect(throws: SQLiteToPostgres.Refused.self) {
                _ = try await SQLiteMove(sourcePath: vault.path, configuration: vault.destination(url), logger: Self.quiet).run()
            }
            #expect(try await Self.postgresRows(url) == before)
        }
    }

    @Test func aKeySourceThatCannotOpenTheSourceIsRefusedBeforeAnythingIsWritten() async throws {
        let vault = SourceVault()
        _ = try await Self.fill(vault)
        var other = vault.configuration
        other.keys.masterKeyFromEnvironment = Encoding.base64(RandomBytes.make(32))
        try await Self.withDestination(empty: true) { url in
            other.database.url = url
            do {
                _ = try await SQLiteMove(sourcePath: vault.path, configuration: other, logger: Self.quiet).run()
                Issue.record("a move with another vault's key was not refused")
            } catch let refused as SQLiteToPostgres.Refused {
                #expect(refused.description.contains("cannot open"), "\(refused)")
            }
            #expect(try await Self.postgresRows(url) == (tables: 0, rows: 0))
        }
    }

    @Test func aSourceAtAnotherMigrationLevelIsRefusedBeforeAnythingIsWritten() async throws {
        let vault = SourceVault()
        _ = try await Self.fill(vault)
        let store = try SQLiteStore(path: vault.path)
        try await store.database.write { connection in
            try connection.run("DELETE FROM schema_migrations WHERE id = (SELECT max(id) FROM schema_migrations)")
        }
        store.close()
        try await Self.withDestination(empty: true) { url in
            do {
                _ = try await SQLiteMove(sourcePath: vault.path, configuration: vault.destination(url), logger: Self.quiet).run()
                Issue.record("a source at another migration level was not refused")
            } catch let refused as SQLiteToPostgres.Refused {
                #expect(refused.description.contains("migration"), "\(refused)")
            }
            #expect(try await Self.postgresRows(url) == (tables: 0, rows: 0))
        }
    }

    @Test func fromTakesOnlySqliteAndAPathAndAnythingElseIsAUsageError() async throws {
        #expect(SQLiteMove.sourcePath(from: "sqlite:data/vault.sqlite") == "data/vault.sqlite")
        #expect(SQLiteMove.sourcePath(from: "sqlite:") == nil)
        #expect(SQLiteMove.sourcePath(from: "data/vault.sqlite") == nil)
        let vault = VaultProcess()
        #expect(try await vault.run(["migrate", "--from", "postgres://vault@127.0.0.1:1/vault"]).status == 2)
        #expect(try await vault.run(["migrate", "--from", "sqlite:a.sqlite", "--status"]).status == 2)
        // Without a PostgreSQL destination configured: refused, nothing created.
        let refused = try await vault.run(["migrate", "--from", "sqlite:missing.sqlite"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("VAULT_DATABASE_URL"), "\(refused.stderr)")
    }
}
