import Foundation
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Vault
@testable import VaultSQLite

/// A vault with merchants, cards and schedules, charged through the in-process sandbox, on the
/// engine of the run (`TestEngine.current`).
struct ChargingFixture {
    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    let path = NSTemporaryDirectory() + "charging-tests-" + UUID().uuidString
    let database: TestDatabase
    let store: any VaultStorage
    let ring: MasterKeyRing
    let keyring: Keyring
    let merchants: MerchantService
    let cards: SecureCardService
    let schedules: ScheduleService
    let sandbox: SandboxGateway
    let registry: GatewayRegistry

    /// - Parameter emailReceipts: how the schedule service checks a `receiptEmail` (refused unless configured).
    init(sandbox: SandboxGateway = SandboxGateway(), horizonDays: Int = 400, emailReceipts: EmailReceiptSetup = .notConfigured) async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        database = try await TestDatabase(path: path + "/vault.sqlite")
        store = database.storage
        ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        keyring = Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        cards = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
        schedules = ScheduleService(
            store: store, settings: ScheduleSettings(defaultTime: LocalTime(hour: 9, minute: 0)!, maxStepCount: 1000, horizonDays: horizonDays),
            keyring: keyring, emailReceipts: emailReceipts)
        self.sandbox = sandbox
        registry = GatewayRegistry(sandbox: sandbox, logger: Self.quietLogger)
    }

    /// The runner's logger in tests: errors only, so a passing run prints neither the info lines
    /// nor the warnings of the failures its tests provoke on purpose.
    static var quietLogger: Logger {
        var logger = Logger(label: "test.runner")
        logger.logLevel = .error
        return logger
    }

    func runner(policy: RetryPolicy = RetryPolicy()) -> ChargeRunner {
        let logger = Self.quietLogger
        return ChargeRunner(
            store: store, cards: cards, gateways: MerchantGateways(registry: registry, merchants: merchants), merchants: store, policy: policy,
            logger: logger, contacts: ScheduleContactOpener(keyring: keyring))
    }

    /// A runner of a second process over the same database: its own store (the caller closes it
    /// with `TestDatabase.close`), keyring, card and merchant services; the same sandbox.
    func secondRunner(policy: RetryPolicy = RetryPolicy()) async throws -> (runner: ChargeRunner, store: any VaultStorage) {
        let store = try await database.openAnother()
        let keyring = Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        let cards = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
        let runner = ChargeRunner(
            store: store, cards: cards, gateways: MerchantGateways(registry: registry, merchants: merchants), merchants: store, policy: policy,
            logger: Self.quietLogger)
        return (runner, store)
    }

    func merchant(_ name: String, zone: String) async throws -> Merchant {
        try await merchants.create(name: name, role: .admin, settings: .init(timeZone: zone, verifyOnRegistration: false), actor: "test").merchant
    }

    func card(_ reference: String, pan: String, expiry: String = "1230", holderName: String? = nil, merchant: Merchant, now: Date) async throws
        -> SecureCard
    {
        try await cards.register(
            SecureCardRegistration(
                merchantReference: reference, source: CardSource(method: "ocr", card: CardInput(number: pan, expiryDate: expiry, holderName: holderName)),
                verify: false),
            merchant: merchant, actor: "test", now: now)
    }

    /// Creates and confirms a schedule.
    func schedule(_ card: SecureCard, amount: Int64, currency: String, plan: PlanTerms, merchant: Merchant, now: Date) async throws -> ScheduleView {
        let created = try await schedules.create(
            NewSchedule(secureCardReference: card.reference, amount: amount, currency: currency, plan: plan), merchant: merchant, actor: "test", now: now)
        return try await schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: now)
    }

    func steps(_ scheduleID: String) async throws -> [ScheduleStep] {
        try await store.steps(scheduleID: scheduleID)
    }

    /// The first column of the first row (`SELECT count(*) AS n ...`), on either engine.
    func count(_ sql: SQLiteQuery) async throws -> Int {
        try await database.sql.count(sql)
    }

    /// Makes the database refuse one kind of write (``TestDatabase/refuse(_:_:when:)``).
    func refuse(_ name: String, _ event: String, when condition: String) async throws {
        try await database.refuse(name, event, when: condition)
    }

    /// Drops a trigger made by ``refuse(_:_:when:)``.
    func stopRefusing(_ name: String, _ event: String) async throws {
        try await database.stopRefusing(name, event)
    }

    /// `yyyy-MM-dd` at 23:59:59 UTC.
    static func endOfDay(_ iso: String) -> Date {
        Timestamp.parse(iso + "T23:59:59Z")!
    }
}
