import Foundation
import Logging
import Payments
import PostgresNIO
@_spi(Benchmarks) import Scheduler
import Synchronization
import Vault
@_spi(Benchmarks) import VaultPostgres
import VaultSQLite

/// The charge runner's store loop: claim a batch of due steps, write their attempts, write their
/// approved outcomes, until nothing is due. No gateway is called: what is timed is the store's
/// share of a charge run. On PostgreSQL with one or more runners (one store each over the same
/// database, as separate processes would have), writing a group of steps per statement or one step
/// at a time; on SQLite with one runner, for comparison.
///
/// The merchant and card the schedules charge are created the way the API creates them (merchant
/// service, card registration). A PostgreSQL fixture runs in a database of its own, created on
/// the server the URL names and dropped by ``remove()``; nothing else in that server is touched.
/// A SQLite fixture lives in a directory of its own, removed by ``remove()``.
public final class ChargeLoopFixture: Sendable {
    /// The environment variable naming the PostgreSQL server of the benchmark (the one the
    /// request-limit benchmark uses); the PostgreSQL benchmarks are skipped when it is absent.
    public static let serverVariable = PostgresRequestLimitFixture.serverVariable

    /// How the runners' attempts and outcomes reach PostgreSQL.
    public enum Writes: Hashable, Sendable {
        /// A group of steps per statement (what the runner does).
        case inGroups
        /// One step at a time (how a group a statement refuses is written).
        case oneStepAtATime
    }

    /// Where the loop runs.
    public enum Engine: Hashable, Sendable {
        /// A fresh database on the PostgreSQL server `serverURL` names, charged by `runners`
        /// runners at once.
        case postgres(serverURL: String, runners: Int, writes: Writes)
        /// A fresh SQLite database, charged by one runner.
        case sqlite
    }

    /// Due steps a runner claims at once (the runner's batch).
    public static let claimLimit = 500
    /// Steps whose attempts (then outcomes) are written in one call.
    public static let group = 128
    /// Steps per schedule the fixture adds.
    public static let stepsPerSchedule = 100

    private let runners: [any ChargeRunStore]
    private let schedules: any ScheduleStore
    private let merchantID: String
    private let cardReference: String
    private let cleanUp: @Sendable () async -> Void

    private init(
        runners: [any ChargeRunStore], schedules: any ScheduleStore, merchantID: String, cardReference: String,
        cleanUp: @escaping @Sendable () async -> Void
    ) {
        self.runners = runners
        self.schedules = schedules
        self.merchantID = merchantID
        self.cardReference = cardReference
        self.cleanUp = cleanUp
    }

    private static let instances = Mutex<[Engine: ChargeLoopFixture]>([:])

    /// The fixture of `engine` the benchmarks share, created on first use (inside the benchmark's
    /// async context, never blocking a thread); ``remove()`` it in the benchmark's teardown.
    public static func shared(_ engine: Engine) async throws -> ChargeLoopFixture {
        if let existing = instances.withLock({ $0[engine] }) { return existing }
        let created = try await create(engine)
        let (kept, spare) = instances.withLock { stored -> (ChargeLoopFixture, ChargeLoopFixture?) in
            if let existing = stored[engine] { return (existing, created) }
            stored[engine] = created
            return (created, nil)
        }
        await spare?.remove()
        return kept
    }

    /// A fresh fixture on `engine`, with one merchant and one card and nothing due.
    public static func create(_ engine: Engine) async throws -> ChargeLoopFixture {
        switch engine {
        case .postgres(let serverURL, let runners, let writes): try await postgres(serverURL: serverURL, runners: runners, writes: writes)
        case .sqlite: try await sqlite()
        }
    }

    /// Adds `count` steps, due a day ago, in schedules of ``stepsPerSchedule`` steps (the last
    /// one shorter).
    public func addDueSteps(_ count: Int) async throws {
        let due = Date().addingTimeInterval(-86_400)
        let currency = try Currency(code: "EUR")
        var added = 0
        while added < count {
            let size = min(Self.stepsPerSchedule, count - added)
            let id = "sch_\(UInt64.random(in: 0...UInt64.max))"
            let now = Date()
            let schedule = Schedule(
                id: id, merchantID: merchantID, secureCardReference: cardReference, status: .active,
                plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-02"]), amount: 1000, currency: currency, description: "benchmark",
                externalID: nil, receiptEmail: nil, receiptPhone: nil, materializedThrough: nil, createdAt: now, updatedAt: now,
                confirmedAt: now, expiresAt: nil, pausedAt: nil, sequence: 0)
            let steps = (0..<size).map { index in
                ScheduleStep(
                    id: "stp_\(added + index)_\(UInt32.random(in: 0...UInt32.max))", scheduleID: id, sequence: index + 1,
                    date: CivilDate(iso: "2027-03-02")!, dueAt: due.addingTimeInterval(Double(index)), amount: 1000 + Int64(index),
                    currency: currency, status: .scheduled, attempts: 0, nextAttemptAt: nil)
            }
            try await schedules.insertSchedule(
                schedule, steps: steps,
                audit: AuditEntry(merchantID: merchantID, actor: "benchmark", action: "schedule.created", objectType: "schedule", objectID: id))
            added += size
        }
    }

    /// Charges every due step: each runner claims, writes attempts and writes approved outcomes
    /// until it claims nothing. Returns how many steps were approved (every due step, unless a
    /// write was refused).
    public func chargeDueSteps() async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, store) in runners.enumerated() {
                let owner = "benchmark:\(index):\(UInt32.random(in: 0...UInt32.max))"
                group.addTask { try await self.charge(with: store, owner: owner) }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Closes the stores and drops the database (or removes the directory).
    public func remove() async {
        await cleanUp()
    }

    private func charge(with store: any ChargeRunStore, owner: String) async throws -> Int {
        var approved = 0
        while true {
            let now = Date()
            let claimed = try await store.claimDueSteps(
                asOf: now, merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: Self.claimLimit,
                isOwnerGone: { _ in false })
            if claimed.isEmpty { return approved }
            for start in stride(from: 0, to: claimed.count, by: Self.group) {
                let dues = Array(claimed[start..<min(start + Self.group, claimed.count)])
                let attempts = dues.map { attempt(of: $0, owner: owner) }
                let refused = try await store.recordAttempts(attempts)
                let written = zip(dues, attempts).enumerated().filter { refused[$0.offset] == nil }.map(\.element)
                let outcomes = try await store.recordOutcomes(written.map { approvedOutcome(of: $1, due: $0, owner: owner) })
                approved += outcomes.count(where: { (try? $0.get()) != nil })
            }
        }
    }

    /// A first attempt of `due`, as the runner writes it before its gateway call.
    private func attempt(of due: DueStep, owner: String) -> ChargeAttempt {
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

    /// The approved outcome of `attempt`, as the runner writes it after the gateway approved.
    private func approvedOutcome(of attempt: ChargeAttempt, due: DueStep, owner: String) -> AttemptOutcome {
        var transaction = attempt.transaction
        transaction.apply(GatewayResult(outcome: .approved, transactionID: "gw_\(due.step.id)"), now: Date())
        return AttemptOutcome(
            outcome: StepOutcome(approved: transaction), step: due.step, schedule: due.schedule,
            audit: AuditEntry(merchantID: merchantID, actor: "runner", action: "charge.approved", objectType: "transaction", objectID: transaction.id),
            leaseOwner: owner)
    }

    // MARK: - Engines

    private static let quiet = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func postgres(serverURL: String, runners: Int, writes: Writes) async throws -> ChargeLoopFixture {
        let server = try PostgresURL(serverURL)
        let name = "charge_loop_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await createDatabaseRetrying { try await onServer(server, "CREATE DATABASE \(name)") }
        var own = server
        own.database = name
        let masterKeys = try MasterKeyRing(keys: [1: try SecureBytes.random(count: 32)])
        var stores: [PostgresStore] = []
        let cleanUp: @Sendable ([PostgresStore]) async -> Void = { stores in
            for store in stores { store.close() }
            try? await onServer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
        do {
            for _ in 0..<max(runners, 1) {
                let store = try await PostgresStore(url: own, logger: quiet)
                store.writeChargeGroups(writes == .inGroups)
                stores.append(store)
            }
            // Each store gets the master keys (as each process opens its keyring) for the audit key.
            let keyrings = stores.map { Keyring(masterKeys: masterKeys, store: $0) }
            let (merchantID, cardReference) = try await merchantAndCard(store: stores[0], keyring: keyrings[0])
            let opened = stores
            return ChargeLoopFixture(
                runners: opened, schedules: opened[0], merchantID: merchantID, cardReference: cardReference,
                cleanUp: { await cleanUp(opened) })
        } catch {
            await cleanUp(stores)
            throw error
        }
    }

    private static func sqlite() async throws -> ChargeLoopFixture {
        let directory = BenchmarkDirectory.make("vault-charge-loop-benchmark")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let store = try SQLiteStore(path: directory.appendingPathComponent("vault.sqlite").path)
            let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: try SecureBytes.random(count: 32)]), store: store)
            let (merchantID, cardReference) = try await merchantAndCard(store: store, keyring: keyring)
            return ChargeLoopFixture(
                runners: [store], schedules: store, merchantID: merchantID, cardReference: cardReference,
                cleanUp: {
                    store.close()
                    try? FileManager.default.removeItem(at: directory)
                })
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// One merchant and one registered card, through the services the API uses.
    private static func merchantAndCard(
        store: any MerchantStore & KeyStore & AuditStore & SecureCardStore & CustomFieldStore, keyring: Keyring
    ) async throws -> (merchantID: String, cardReference: String) {
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox",
            gateways: MerchantGatewayRules([(name: "sandbox", credentialNames: [])]))
        let merchant = try await merchants.create(
            name: "benchmark", role: .admin, settings: .init(verifyOnRegistration: false), actor: "benchmark"
        ).merchant
        let card = try await SecureCardService(store: store, keyring: keyring, verifier: RegistrationFixture.NoVerification()).register(
            SecureCardRegistration(
                merchantReference: "benchmark-card",
                source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Bench Mark")),
                customer: Customer(email: "bench@example.com", country: "US"), verify: false),
            merchant: merchant, actor: "benchmark")
        return (merchant.id, card.reference)
    }

    private static func onServer(_ url: PostgresURL, _ statement: String) async throws {
        let client = PostgresClient(configuration: try url.clientConfiguration(host: url.hosts[0]), backgroundLogger: quiet)
        let task = Task { await client.run() }
        defer { task.cancel() }
        try await client.query(PostgresQuery(unsafeSQL: statement), logger: quiet)
    }
}
