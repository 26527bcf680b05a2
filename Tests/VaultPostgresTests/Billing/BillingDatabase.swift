import Foundation
import Logging
import Payments
import PostgresNIO
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultPostgres

/// A fresh PostgreSQL database per test, created on the cluster `VAULT_TEST_DATABASE_URL` names
/// (tests of this kind are skipped without it), migrated, with one merchant and card rows to hang
/// schedules on.
struct BillingDatabase {
    /// The cluster's URL, when tests against PostgreSQL run.
    static let baseURL = ProcessInfo.processInfo.environment["VAULT_TEST_DATABASE_URL"]
    static var available: Bool { baseURL != nil }
    static let logger = Logger(label: "vault.postgres.test") { _ in SwiftLogNoOpLogHandler() }

    /// The new database's URL (for a second store, as a second process would open it).
    let url: PostgresURL
    /// A store over it.
    let store: PostgresStore
    let merchantID = "mer_test"

    /// Creates the database, migrates it and adds the merchant.
    init() async throws {
        let base = try #require(Self.baseURL)
        let name = "billing_\(UInt64.random(in: 0...UInt64.max))"
        try await PostgresTestDatabase.createDatabase(name, server: try PostgresURL(base))
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        url = try PostgresURL(try #require(components.string))
        store = try await Self.open(url)
        let merchantID = self.merchantID
        try await store.write { write in
            let now = Timestamp.string(Date())
            try await write.run(
                "INSERT INTO kek_versions (version, check_value, created_at) VALUES (1, \(bytea([1, 2, 3])), \(now))")
            try await write.run(
                """
                INSERT INTO merchants (id, seq, name, status, gateway, time_zone, callback_url, created_at, updated_at)
                VALUES (\(merchantID), 1, 'test', 'active', 'sandbox', 'UTC', 'https://merchant.example/hook', \(now), \(now))
                """)
            try await write.run(
                """
                INSERT INTO secure_cards (id, merchant_id, merchant_reference, status, card_type, masked_number, expiry_month, expiry_year,
                    entry_mode, fingerprint, key_version, created_at, updated_at)
                VALUES ('card_1', \(merchantID), 'ref-1', 'active', 'visa', '424242******4242', 12, 2030, 'keyed', 'fp', 1, \(now), \(now))
                """)
        }
    }

    /// Another store over the same database, as another process (or machine) would have.
    static func open(_ url: PostgresURL) async throws -> PostgresStore {
        let store = try await PostgresStore(url: url, logger: logger)
        store.auditKeys.attach(TestCustodian())
        return store
    }

    /// `count` schedules of `stepsEach` steps each, all due at `due` (steps `scheduled`), in `currency`;
    /// amounts `1000 + schedule index * stepsEach + step index`.
    @discardableResult
    func schedules(_ count: Int, stepsEach: Int, due: Date, currency: String = "EUR", amount: Int64? = nil) async throws -> [ScheduleStep] {
        var all: [ScheduleStep] = []
        for index in 0..<count {
            let id = "sch_\(UInt64.random(in: 0...UInt64.max))"
            let now = Date()
            let schedule = Schedule(
                id: id, merchantID: merchantID, secureCardReference: "card_1", status: .active,
                plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-02"]), amount: amount ?? 1000, currency: try Currency(code: currency),
                description: "plan \(index)", externalID: nil, receiptEmail: nil, receiptPhone: nil, materializedThrough: nil, createdAt: now,
                updatedAt: now, confirmedAt: now, expiresAt: nil, pausedAt: nil, sequence: 0)
            let steps = try (0..<stepsEach).map { step in
                ScheduleStep(
                    id: "stp_\(index)_\(step)_\(UInt32.random(in: 0...UInt32.max))", scheduleID: id, sequence: step + 1,
                    date: CivilDate(iso: "2027-03-02")!, dueAt: due.addingTimeInterval(Double(step)),
                    amount: amount ?? 1000 + Int64(index * stepsEach + step), currency: try Currency(code: currency), status: .scheduled,
                    attempts: 0, nextAttemptAt: nil)
            }
            try await store.insertSchedule(
                schedule, steps: steps,
                audit: AuditEntry(merchantID: merchantID, actor: "test", action: "schedule.created", objectType: "schedule", objectID: id))
            all += steps
        }
        return all
    }

    /// A first attempt of `due` as the runner writes it.
    func attempt(_ due: DueStep, owner: String?) -> ChargeAttempt {
        let step = due.step
        let attempt = step.attempts + 1
        var transaction = Transaction(
            id: Transaction.makeID(), merchantID: merchantID, type: .sale, amount: step.amount, currency: step.currency, gateway: "sandbox",
            now: Date(), idempotencyKey: "\(step.id)-a\(attempt)", orderReference: "s\(step.id)a\(attempt)")
        transaction.secureCardReference = due.schedule.secureCardReference
        transaction.scheduleID = due.schedule.id
        transaction.stepID = step.id
        transaction.attempt = attempt
        return ChargeAttempt(transaction: transaction, step: step, leaseOwner: owner)
    }

    /// The approved outcome of `attempt`.
    func approved(_ attempt: ChargeAttempt, due: DueStep, owner: String?) -> AttemptOutcome {
        var transaction = attempt.transaction
        transaction.apply(GatewayResult(outcome: .approved, transactionID: "gw_\(due.step.id)"), now: Date())
        return AttemptOutcome(
            outcome: StepOutcome(transaction: transaction, stepStatus: .approved), step: due.step, schedule: due.schedule,
            audit: AuditEntry(merchantID: merchantID, actor: "runner", action: "charge.approved", objectType: "transaction", objectID: transaction.id),
            leaseOwner: owner)
    }

    /// One number from the database.
    func count(_ query: PostgresQuery) async throws -> Int {
        try await store.read { connection in try await connection.row(query, logger: Self.logger)?.int("n") ?? -1 }
    }

    /// Drops the database.
    func drop() async {
        store.close()
        guard let base = Self.baseURL, let baseURL = try? PostgresURL(base),
            let admin = try? await PostgresStore(url: baseURL, logger: Self.logger, migrations: [])
        else { return }
        let name = url.database
        _ = try? await admin.client.withConnection { connection in
            try await connection.run(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
        }
        admin.close()
    }
}

/// Wraps system keys as they are (the tests' audit chain needs a key, not a KEK).
final class TestCustodian: SystemKeyCustodian {
    func unwrapSystemKey(_ wrapped: [UInt8], purpose: String, kekVersion: Int) throws -> SecureBytes {
        try SecureBytes(count: wrapped.count) { buffer in buffer.copyBytes(from: wrapped) }
    }

    func wrapSystemKey(_ key: SecureBytes, purpose: String) throws -> (kekVersion: Int, wrapped: [UInt8]) {
        (1, key.copyToArray())
    }
}
