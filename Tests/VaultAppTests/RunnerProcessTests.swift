import Foundation
import Logging
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// A vault directory with due steps on the sandbox, seeded in process, charged by real `vault`
/// processes (the master key is passed as `VAULT_MASTER_KEY`, the paths as `VAULT_DATABASE` (or `VAULT_DATABASE_URL` in the PostgreSQL pass) and
/// `VAULT_KEYS_DIR`).
struct DueStepsVault {
    /// Which sandbox card a share of the steps is charged to, and how it ends.
    struct Share {
        var pan: String
        var steps: Int
        var amount: Int64
    }

    static let asOf = "2030-03-01T12:00:00Z"
    static let seededAt = Timestamp.parse("2030-02-01T00:00:00Z")!

    let vault: VaultProcess
    let masterKey = Encoding.base64(RandomBytes.make(32))

    var databasePath: String { vault.directory.file("data/vault.sqlite") }

    var environment: [String: String] {
        ["VAULT_MASTER_KEY": masterKey, "VAULT_DATABASE": databasePath, "VAULT_KEYS_DIR": vault.directory.file("keys")]
    }

    /// Creates a sandbox merchant, one card per share and one `delayedOnce` schedule per step, due
    /// 2030-03-01 09:00 UTC, all confirmed, through the library services; closes the database.
    init(shares: [Share]) async throws {
        vault = try await VaultProcess.onTestEngine()
        var configuration = VaultConfiguration()
        configuration.database = vault.database
        configuration.keys.directory = vault.directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = masterKey
        var logger = Logger(label: "runner-process-tests")
        logger.logLevel = .critical
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger, database: .createIfMissing)
        defer { runtime.close() }
        let merchant = try await runtime.merchants.create(
            name: "acme", role: .admin, settings: MerchantSettings(gateway: "sandbox", timeZone: "UTC", verifyOnRegistration: false), actor: "test"
        ).merchant
        for (index, share) in shares.enumerated() {
            let card = try await runtime.cards.register(
                SecureCardRegistration(
                    merchantReference: "card-\(index)", source: CardSource(method: "ocr", card: CardInput(number: share.pan, expiryDate: "1230")),
                    verify: false),
                merchant: merchant, actor: "test", now: Self.seededAt)
            let plan = PlanTerms(type: "delayedOnce", startDate: "2030-03-01", hour: 9, minute: 0, timeZone: "UTC")
            let request = NewSchedule(secureCardReference: card.reference, amount: share.amount, currency: "USD", plan: plan)
            // Seeded as a library user would, without the server's first-use check on confirmation:
            // the cards are unverified and some decline, which is what the runner is tested on.
            let schedules = ScheduleService(store: runtime.store, settings: ScheduleSettings(defaultTime: .midnight), keyring: runtime.keyring)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<share.steps {
                    group.addTask {
                        let created = try await schedules.create(request, merchant: merchant, actor: "test", now: Self.seededAt)
                        _ = try await schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: Self.seededAt)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Runs `vault charge run ARGUMENTS` (its wait is off the cooperative pool).
    func chargeRun(_ arguments: [String]) async throws -> VaultProcess.Outcome {
        try await vault.run(["charge", "run"] + arguments, environment: environment)
    }

    /// An integer the query answers as `n`.
    func count(_ sql: SQLiteQuery) async throws -> Int {
        try await vault.withStore { store in try await TestSQL(store).count(sql) }
    }

    /// The row counts of `tables`, in order.
    func counts(_ tables: [String]) async throws -> [Int] {
        var counts: [Int] = []
        for table in tables { counts.append(try await count("SELECT count(*) AS n FROM \(unescaped: table)")) }
        return counts
    }

    /// Step counts by status.
    func stepStatuses() async throws -> [String: Int] {
        try await vault.withStore { store in
            var statuses: [String: Int] = [:]
            for row in try await TestSQL(store).query("SELECT status, count(*) AS n FROM schedule_steps GROUP BY status") {
                statuses[try row.string("status")] = try row.int("n")
            }
            return statuses
        }
    }

    /// Steps that do not have exactly one attempt transaction.
    func stepsNotChargedExactlyOnce() async throws -> Int {
        try await count("""
            SELECT count(*) AS n FROM schedule_steps s
            WHERE (SELECT count(*) FROM transactions t WHERE t.step_id = s.id) <> 1
            """)
    }
}

/// The JSON summary `vault charge run --json` prints.
struct PrintedSummary {
    let object: [String: Any]

    init(_ stdout: String) throws {
        object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
    }

    var due: Int { (object["due"] as? [String: Any])?["count"] as? Int ?? -1 }

    func count(_ outcome: ChargeOutcome) -> Int {
        ((object["outcomes"] as? [String: Any])?[outcome.rawValue] as? [String: Any])?["count"] as? Int ?? -1
    }

    func total(_ outcome: ChargeOutcome, _ currency: String) -> Int? {
        (((object["outcomes"] as? [String: Any])?[outcome.rawValue] as? [String: Any])?["totals"] as? [String: Any])?[currency] as? Int
    }
}

@Suite struct RunnerProcessTests {
    static let approving = "4242424242424242"
    static let hardDecline = "4000000000000002"
    static let softDecline = "4000000000009995"

    @Test func chargeRunJSONPrintsOneSummaryWithCountsAndTotalsAndChargesEachStepOnce() async throws {
        let world = try await DueStepsVault(shares: [
            .init(pan: Self.approving, steps: 200, amount: 1999),
            .init(pan: Self.hardDecline, steps: 50, amount: 500),
            .init(pan: Self.softDecline, steps: 50, amount: 700),
        ])
        let run = try await world.chargeRun(["--as-of", DueStepsVault.asOf, "--concurrency", "8", "--json"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        // An info line queued just before exit still reaches standard error (written at exit).
        #expect(run.stderr.contains(#""message":"charge run finished""#))
        let summary = try PrintedSummary(run.stdout)
        #expect(summary.due == 300)
        #expect(summary.count(.approved) == 200)
        #expect(summary.total(.approved, "USD") == 200 * 1999)
        #expect(summary.count(.failed) == 50)
        #expect(summary.total(.failed, "USD") == 50 * 500)
        #expect(summary.count(.retryScheduled) == 50)
        #expect(summary.total(.retryScheduled, "USD") == 50 * 700)
        #expect(summary.count(.unsettled) == 0)
        #expect(summary.object["settled"] as? Bool == true)
        #expect(summary.object["schedulesCompleted"] as? Int == 200)
        #expect(summary.object["schedulesPastDue"] as? Int == 50)
        #expect(try await world.stepStatuses() == ["approved": 200, "failed": 50, "retry_pending": 50])
        #expect(try await world.stepsNotChargedExactlyOnce() == 0)
        #expect(try await world.count("SELECT count(*) AS n FROM charge_runs WHERE status = 'completed'") == 1)

        let again = try await world.chargeRun(["--as-of", DueStepsVault.asOf, "--json"])
        #expect(again.status == 0)
        let second = try PrintedSummary(again.stdout)
        #expect(second.due == 0)
        #expect(second.count(.approved) == 0)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions") == 300)
    }

    @Test func dryRunReportsWhatIsDueAndChangesNothing() async throws {
        let world = try await DueStepsVault(shares: [.init(pan: Self.approving, steps: 300, amount: 1250)])
        let tables = ["transactions", "audit_events", "charge_runs", "webhook_events"]
        let before = try await world.counts(tables)
        let dry = try await world.chargeRun(["--as-of", DueStepsVault.asOf, "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry.stderr.suffix(2000))")
        let summary = try PrintedSummary(dry.stdout)
        #expect(summary.object["dryRun"] as? Bool == true)
        #expect(summary.due == 300)
        #expect(((summary.object["due"] as? [String: Any])?["totals"] as? [String: Any])?["USD"] as? Int == 300 * 1250)
        #expect(summary.count(.approved) == 0)
        #expect(try await world.counts(tables) == before)
        #expect(try await world.stepStatuses() == ["scheduled": 300])
        #expect(try await world.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NOT NULL") == 0)
    }

    @Test func twoRunnersStartedTogetherChargeEveryStepExactlyOnce() async throws {
        let world = try await DueStepsVault(shares: [.init(pan: Self.approving, steps: 300, amount: 1000)])
        let arguments = ["--as-of", DueStepsVault.asOf, "--concurrency", "16", "--json"]
        async let first = world.chargeRun(arguments)
        async let second = world.chargeRun(arguments)
        let runs = try await [first, second]
        for run in runs {
            #expect(run.status == 0, "\(run.stderr.suffix(2000))")
            #expect(!run.stderr.localizedCaseInsensitiveContains("database is locked"))
        }
        let approved = try runs.map { try PrintedSummary($0.stdout).count(.approved) }
        #expect(approved.reduce(0, +) == 300)
        #expect(try await world.stepStatuses() == ["approved": 300])
        #expect(try await world.stepsNotChargedExactlyOnce() == 0)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions WHERE status = 'approved'") == 300)
        // One audit event per charge, written with its outcome (docs/decisions/audit-chain.md: no separate event for the attempt).
        #expect(try await world.count("SELECT count(*) AS n FROM audit_events WHERE action = 'charge.approved'") == 300)
        #expect(try await world.count("SELECT count(DISTINCT object_id) AS n FROM audit_events WHERE action = 'charge.approved'") == 300)
    }

    @Test(arguments: [["--as-of", "garbage"], ["--as-of", "2030-13-01T00:00:00Z"], ["--concurrency", "0"]])
    func malformedOptionsExitWith2AndChargeNothing(arguments: [String]) async throws {
        let world = try await DueStepsVault(shares: [.init(pan: Self.approving, steps: 1, amount: 1000)])
        let run = try await world.chargeRun(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(arguments[0]))
        #expect(try await world.count("SELECT count(*) AS n FROM transactions") == 0)
    }
}
