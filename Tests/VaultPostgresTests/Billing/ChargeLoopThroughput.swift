import Foundation
import Payments
import PostgresNIO
@testable import Scheduler
import Synchronization
import Testing
import Vault
@testable import VaultPostgres
import VaultSQLite

/// The runner's store loop — claim a batch, write its attempts, write their approved outcomes —
/// on PostgreSQL (one and two runner processes; writing one step at a time, then in groups) beside SQLite, for `VAULT_BILLING_BENCH_STEPS`
/// due steps (skipped unless set; a measurement, not a check). No gateway: what is measured is
/// the store's share of a charge run. Prints one line per engine.
///
/// Run: `VAULT_BILLING_BENCH_STEPS=10000 VAULT_TEST_DATABASE_URL=... swift test --filter ChargeLoopThroughput`
/// (build with `-c release` for figures comparable to the performance targets).
@Suite(.enabled(if: BenchmarkSize.steps != nil && BillingDatabase.available, "needs VAULT_BILLING_BENCH_STEPS and VAULT_TEST_DATABASE_URL"))
struct ChargeLoopThroughput {
    static let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!
    static let asOf = Timestamp.parse("2027-03-03T00:00:00.000Z")!
    static let batch = 500
    static let group = 128

    @Test func claimAttemptAndOutcomeLoopOnPostgresAndSQLite() async throws {
        let count = try #require(BenchmarkSize.steps)
        // PostgreSQL, one runner then two (two stores, as two processes), each on a fresh set of
        // steps: first writing one step at a time (without grouping), then in groups.
        let database = try await BillingDatabase()
        let second = try await BillingDatabase.open(database.url)
        var seconds: [Double] = []
        for (phase, (grouped, stores)) in [(false, [database.store]), (false, [database.store, second]), (true, [database.store]),
            (true, [database.store, second])].enumerated()
        {
            for store in stores { store.writesChargeGroups.store(grouped, ordering: .relaxed) }
            try await database.schedules(count / 100, stepsEach: 100, due: Self.due.addingTimeInterval(Double(phase) * 3600))
            seconds.append(try await Self.run(stores, database: database))
        }
        second.close()
        await database.drop()
        // SQLite, one runner.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgbilling-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteStore(path: directory.appendingPathComponent("vault.db").path)
        sqlite.attachSystemKeyCustodian(TestCustodian())
        try await sqlite.database.write { connection in
            let now = Timestamp.string(Date())
            try connection.run("INSERT INTO kek_versions (version, check_value, created_at) VALUES (1, \([UInt8]([1, 2, 3])), \(now))")
            try connection.run(
                """
                INSERT INTO merchants (id, seq, name, status, gateway, time_zone, callback_url, created_at, updated_at)
                VALUES (\(database.merchantID), 1, 'test', 'active', 'sandbox', 'UTC', 'https://merchant.example/hook', \(now), \(now))
                """)
            try connection.run(
                """
                INSERT INTO secure_cards (id, merchant_id, merchant_reference, status, card_type, masked_number, expiry_month, expiry_year,
                    entry_mode, fingerprint, key_version, created_at, updated_at)
                VALUES ('card_1', \(database.merchantID), 'ref-1', 'active', 'visa', '424242******4242', 12, 2030, 'keyed', 'fp', 1,
                    \(now), \(now))
                """)
        }
        try await BillingDatabase.insertSchedules(into: sqlite, merchantID: database.merchantID, count / 100, stepsEach: 100, due: Self.due)
        let lite = try await Self.run([sqlite], database: database)
        sqlite.close()
        print(String(
            format: "charge loop, %d due steps: PostgreSQL one step at a time: 1 runner %.0f steps/s, 2 runners %.0f steps/s; "
                + "PostgreSQL in groups: 1 runner %.0f steps/s, 2 runners %.0f steps/s; SQLite 1 runner %.0f steps/s",
            count, Double(count) / seconds[0], Double(count) / seconds[1], Double(count) / seconds[2], Double(count) / seconds[3],
            Double(count) / lite))
    }

    /// Runs the loop with one runner per store until nothing is due; seconds taken.
    static func run(_ stores: [any ChargeRunStore], database: BillingDatabase) async throws -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask { try await loop(store, owner: "bench:\(index):\(UInt32.random(in: 0...UInt32.max))", database: database) }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func loop(_ store: any ChargeRunStore, owner: String, database: BillingDatabase) async throws {
        while true {
            let now = Date()
            let claimed = try await store.claimDueSteps(
                asOf: asOf.addingTimeInterval(7200), merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: batch,
                isOwnerGone: { _ in false })
            if claimed.isEmpty { return }
            for start in stride(from: 0, to: claimed.count, by: group) {
                let dues = Array(claimed[start..<min(start + group, claimed.count)])
                let attempts = dues.map { database.attempt($0, owner: owner) }
                let errors = try await store.recordAttempts(attempts)
                #expect(errors.allSatisfy { $0 == nil })
                let results = try await store.recordOutcomes(zip(dues, attempts).map { database.approved($1, due: $0, owner: owner) })
                #expect(results.allSatisfy { (try? $0.get()) != nil })
            }
        }
    }
}

/// How many due steps the throughput comparison charges (`VAULT_BILLING_BENCH_STEPS`).
enum BenchmarkSize {
    static let steps = ProcessInfo.processInfo.environment["VAULT_BILLING_BENCH_STEPS"].flatMap(Int.init)
}
