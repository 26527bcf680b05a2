import Foundation
import Logging
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultPostgres

/// The round trips of a charge run on PostgreSQL, counted through the real runner charging due
/// steps against the sandbox gateway whose ledger is in the same database (as `vault charge run`
/// does): what one charged step costs the database, split by statement, so that a change which
/// adds a round trip per step fails here before it shows in the benchmark.
@Suite("PostgreSQL: charge run round trips", .postgres)
struct PostgresChargeRunRoundTripTests {
    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!
    /// The run's cards: each charged for several steps of a batch, as a card whose missed months
    /// are caught up is, and more than one batch reads.
    static let cardCount = 24

    /// A valid 16-digit Visa number of `index`, none of the sandbox's test cards (which decline or fail).
    static func cardNumber(_ index: Int) -> String {
        let serial = String(10_000_000 + index)
        let body = "4" + String(repeating: "0", count: 14 - serial.count) + serial
        let digits = body.compactMap(\.wholeNumberValue)
        var sum = 0
        for (position, digit) in digits.reversed().enumerated() {
            let value = position.isMultiple(of: 2) ? digit * 2 : digit
            sum += value > 9 ? value - 9 : value
        }
        return body + String((10 - sum % 10) % 10)
    }
    static let asOf = Timestamp.parse("2027-03-02T23:59:59Z")!

    /// What one counted run sent.
    struct CountedRun {
        var summary: ChargeRunSummary
        /// Every statement of the run, in order (bound values are never part of the text).
        var statements: [String]
        /// Rows of the sandbox ledger after the run.
        var sandboxTransactions: Int

        /// The statements whose text contains `fragment`.
        func count(_ fragment: String) -> Int {
            statements.filter { $0.contains(fragment) }.count
        }

        /// How many times each statement was sent, most frequent first, each text shortened to its
        /// first line: the split a reader needs to see where a step's round trips go.
        var split: [(statement: String, count: Int)] {
            var counts: [String: Int] = [:]
            for statement in statements {
                let line = statement.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? statement
                counts[String(line.prefix(100)), default: 0] += 1
            }
            return counts.map { (statement: $0.key, count: $0.value) }.sorted { ($1.count, $0.statement) < ($0.count, $1.statement) }
        }
    }

    /// Charges `steps` due steps (one-time schedules over ``cardCount`` cards of one merchant, every one
    /// approved by the sandbox) with one runner at `concurrency`, counting the run's statements.
    static func chargeRun(steps: Int, concurrency: Int = 64, batchSize: Int = 256) async throws -> CountedRun {
        try await PostgresTestDatabase.withStore { store, keyring in
            let merchants = MerchantService(
                store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
            let cards = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
            let schedules = ScheduleService(
                store: store, settings: ScheduleSettings(defaultTime: LocalTime(hour: 9, minute: 0)!, maxStepCount: 1000, horizonDays: 400),
                keyring: keyring, emailReceipts: .notConfigured)
            let merchant = try await merchants.create(
                name: "acme", role: .admin, settings: .init(timeZone: "UTC", verifyOnRegistration: false), actor: "test"
            ).merchant
            var registered: [SecureCard] = []
            for index in 0..<Self.cardCount {
                registered.append(try await cards.register(
                    SecureCardRegistration(
                        merchantReference: "card-\(index)",
                        source: CardSource(method: "keyed", card: CardInput(number: Self.cardNumber(index), expiryDate: "1230", holderName: "Card Holder")),
                        verify: false),
                    merchant: merchant, actor: "test", now: Self.registered))
            }
            // Every card's first payment is on file, as for the months after a series began: the
            // first payments' writes, as many as the charges in flight before one is kept, are
            // not a charged step's steady cost.
            let storedCredentials = StoredCredentials(store: store, keyring: keyring)
            for (index, card) in registered.enumerated() {
                try await storedCredentials.record(
                    String(100_000_000_000_000 + index), secureCardReference: card.reference, merchantID: merchant.id, gateway: "sandbox",
                    transactionID: nil, replacing: true)
            }
            for index in 0..<steps {
                let created = try await schedules.create(
                    NewSchedule(
                        secureCardReference: registered[index % registered.count].reference, amount: 1_000 + Int64(index), currency: "USD",
                        plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02")),
                    merchant: merchant, actor: "test", now: Self.registered)
                _ = try await schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: Self.registered)
            }
            var logger = Logger(label: "test.runner")
            logger.logLevel = .warning
            let sandbox = SandboxGateway(ledger: store)
            let runner = ChargeRunner(
                store: store, cards: cards, gateways: MerchantGateways(registry: GatewayRegistry(sandbox: sandbox), merchants: merchants),
                merchants: store, policy: RetryPolicy(), logger: logger, storedCredentials: storedCredentials,
                contacts: ScheduleContactOpener(keyring: keyring))
            var options = ChargeRunner.Options(asOf: Self.asOf)
            options.concurrency = concurrency
            options.batchSize = batchSize
            let counter = PostgresStatementCounter()
            let summary = try await PostgresStatementCounter.$current.withValue(counter) { try await runner.run(options) }
            #expect(counter.count == counter.statements.count)
            return CountedRun(summary: summary, statements: counter.statements, sandboxTransactions: try await sandbox.transactionCount)
        }
    }

    /// Prints the split of a run when `VAULT_TEST_REPORT_STATEMENTS` is set (quiet otherwise).
    static func report(_ run: CountedRun, steps: Int) {
        guard ProcessInfo.processInfo.environment["VAULT_TEST_REPORT_STATEMENTS"] != nil else { return }
        var lines = ["\(run.statements.count) statements for \(steps) charged steps"]
        lines += run.split.map { String(format: "%8.3f  %5d  ", Double($0.count) / Double(steps), $0.count) + $0.statement }
        print(lines.joined(separator: "\n"))
    }

    /// Every statement an outcome group sends, whatever its size: BEGIN, the savepoint and its
    /// release, the schedules locked, the steps with their transactions, the completions, the
    /// webhook events, the audit chains' heads read and the events with the heads, COMMIT.
    static let statementsPerOutcomeGroup = 10
    /// A group of attempts: BEGIN, the savepoint, the one statement, its release, COMMIT.
    static let statementsPerAttemptGroup = 5
    /// A claim's BEGIN and COMMIT (its range scans and its read of lease owners are counted).
    static let statementsPerClaim = 2
    /// A batch that claimed steps, besides its claim: its schedules read in one snapshot (BEGIN,
    /// the read, COMMIT), its cards, their kept first-payment ids (one merchant).
    static let statementsPerBatch = 3 + 1 + 1
    /// A read of one statement in its own snapshot (BEGIN, the read, COMMIT): the merchant and its
    /// gateway credentials (once per run, or once per claim of the first two running at once), the
    /// keyring's key generation (at most every two seconds) and the merchant's keys it reads again
    /// (after a while, on a slow machine within the run).
    static let statementsPerSnapshotRead = 3
    /// Once per run: horizons, the due totals, the audit chain, the held-back count.
    static let statementsPerRun = 16

    @Test func aChargedStepIsAFewStatementsPerGroupAndTheSandboxCallAtMostOneStatement() async throws {
        let (steps, batchSize) = (192, 64)
        let run = try await Self.chargeRun(steps: steps, batchSize: batchSize)
        Self.report(run, steps: steps)
        #expect(run.summary.processed == steps)
        #expect(run.summary.outcomes[ChargeOutcome.approved.rawValue]?.count == steps)
        #expect(run.sandboxTransactions == steps, "one sale per step, none twice")

        // The sandbox: autocommit statements of new charges, at most one per charge (the charges
        // made at once share one: how many do depends on how the calls interleave), no lock, no
        // read, no transaction.
        let sandboxStatements = run.count("sandbox_")
        #expect(sandboxStatements >= 1 && sandboxStatements <= steps, "\(run.split)")
        #expect(run.count("INSERT INTO sandbox_calls") == sandboxStatements)
        #expect(run.count("pg_advisory_xact_lock") == 0)
        // The cards and their kept first-payment ids: one read each per batch (one merchant),
        // none per card or charge.
        let batches = run.count("SELECT * FROM schedules WHERE id = ANY")
        #expect(batches >= steps / batchSize)
        #expect(run.count("FROM secure_cards") <= batches, "\(run.split)")
        #expect(run.count("FROM stored_credentials") <= batches, "\(run.split)")
        // How many claims, attempt groups and outcome groups a run takes depends on how its tasks
        // interleave (the last claims find nothing; an outcome group takes every answer that
        // arrived meanwhile), so the bound counts them; each costs a fixed number of statements.
        // Everything else is the sandbox's statements (at most one per step) and a few per run.
        let ranges = run.count("WITH picked AS (")
        let ownerReads = run.count("SELECT DISTINCT s.lease_owner")
        // A claim that fills its batch reads no lease owners; every other claim does.
        let claims = batches + ownerReads
        let attemptGroups = run.count("INSERT INTO transactions (id, merchant_id, type, status")
        let outcomeGroups = run.count("UPDATE transactions t SET status")
        #expect(attemptGroups >= 1 && outcomeGroups >= 1)
        let snapshotReads = run.count("FROM merchants WHERE id") + run.count("key_generation") + run.count("FROM merchant_keys")
        let bound = sandboxStatements + ranges + ownerReads + claims * Self.statementsPerClaim + batches * Self.statementsPerBatch
            + attemptGroups * Self.statementsPerAttemptGroup + outcomeGroups * Self.statementsPerOutcomeGroup
            + snapshotReads * Self.statementsPerSnapshotRead + Self.statementsPerRun
        #expect(run.statements.count <= bound, "\(run.statements.count) statements, \(outcomeGroups) outcome groups: \(run.split)")
    }

    @Test func aNewChargeIsOneStatementAndItsKeyAgainIsAnsweredFromTheLedgerInOneTransaction() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            let sandbox = SandboxGateway(ledger: store)
            let money = Money(minorUnits: 1_500, currency: try Currency(code: "USD"))
            let card = PaymentCard(pan: try PrimaryAccountNumber(validating: "4242424242424242"), expiry: try CardExpiry(month: 12, year: 2030),
                                   holderName: nil, cvv: nil, postalCode: nil)
            let request = ChargeRequest(idempotencyKey: "k-1", reference: "INV-1", amount: money, card: card, description: nil)
            let first = PostgresStatementCounter()
            let charged = await PostgresStatementCounter.$current.withValue(first) { await sandbox.sale(request) }
            #expect(charged.isApproved)
            #expect(first.statements.count == 1, "\(first.statements)")
            #expect(first.statements.first?.hasPrefix("WITH call AS (") == true)

            let again = PostgresStatementCounter()
            let replayed = await PostgresStatementCounter.$current.withValue(again) { await sandbox.sale(request) }
            #expect(replayed == charged)
            // The one statement inserts nothing; the locked transaction reads the remembered call.
            #expect(again.statements.first?.hasPrefix("WITH call AS (") == true)
            #expect(again.statements.dropFirst().first?.hasPrefix("BEGIN") == true, "\(again.statements)")
            #expect(again.statements.contains { $0.contains("pg_advisory_xact_lock") })
            #expect(again.statements.last == "COMMIT")
            #expect(try await sandbox.transactionCount == 1)

            let refund = FollowUpRequest(idempotencyKey: "k-2", reference: "RF-1", gatewayTransactionID: charged.transactionID ?? "",
                                         amount: Money(minorUnits: 500, currency: try Currency(code: "USD")), card: nil)
            let followUp = PostgresStatementCounter()
            let refunded = await PostgresStatementCounter.$current.withValue(followUp) { await sandbox.refund(refund) }
            #expect(refunded.isApproved)
            // A follow-up acts on a transaction: the locked transaction, no speculative statement.
            #expect(followUp.statements.first?.hasPrefix("BEGIN") == true, "\(followUp.statements)")
            #expect(!followUp.statements.contains { $0.hasPrefix("WITH call AS (") })
        }
    }
}
