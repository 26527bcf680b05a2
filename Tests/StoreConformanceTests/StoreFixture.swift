import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// A temporary directory removed when the value goes away (where a SQLite file goes).
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "store-conformance-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A fresh, migrated database on the run's engine (`TestEngine.current`) with one merchant and one
/// card, reached only through the store protocols (and `TestSQL` for what a test counts or sets up
/// behind the stores' backs), so every test of this module runs unchanged on SQLite and PostgreSQL.
struct StoreFixture {
    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    let directory = TemporaryDirectory()
    let database: TestDatabase
    let store: any VaultStorage
    let ring: MasterKeyRing
    let keyring: Keyring
    let merchants: MerchantService
    let cards: SecureCardService
    let merchant: Merchant
    let card: SecureCard

    var merchantID: String { merchant.id }

    /// - Parameter callbackURL: the merchant's `callbackUrl` (webhook events are claimed only for
    ///   a merchant that has one).
    init(callbackURL: String? = nil) async throws {
        database = try await TestDatabase(path: directory.file("vault.sqlite"))
        store = database.storage
        ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        keyring = Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        cards = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
        merchant = try await merchants.create(
            name: "m", role: .admin, settings: .init(callbackURL: callbackURL, verifyOnRegistration: false), actor: "test"
        ).merchant
        card = try await cards.register(
            SecureCardRegistration(
                merchantReference: "ref-1", source: CardSource(method: "ocr", card: CardInput(number: "4242424242424242", expiryDate: "1230")),
                verify: false),
            merchant: merchant, actor: "test", now: Date())
    }

    /// Plain SQL against the database, on either engine.
    var sql: TestSQL { database.sql }

    /// The first column of the first row (`SELECT count(*) AS n ...`).
    func count(_ query: SQLiteQuery) async throws -> Int {
        try await sql.count(query)
    }

    /// Another store over the same database, as a second server or runner process opens it, with
    /// its own keyring over the same master key; `body` runs with it, and it is closed afterwards.
    func withAnotherStore<T>(_ body: (any VaultStorage) async throws -> T) async throws -> T {
        let other = try await database.openAnother()
        do {
            try await Keyring(masterKeys: ring, store: other).verifyMasterKey()
            let result = try await body(other)
            TestDatabase.close(other)
            return result
        } catch {
            TestDatabase.close(other)
            throw error
        }
    }

    /// `count` confirmed schedules of `stepsEach` steps each on the fixture's card, steps `scheduled`
    /// and due from `due` (one second apart), in `currency`; amounts `1000 + schedule index *
    /// stepsEach + step index` unless `amount` is given. Schedule `description`s are `plan <index>`.
    @discardableResult
    func schedules(_ count: Int, stepsEach: Int, due: Date, currency: String = "EUR", amount: Int64? = nil) async throws -> [ScheduleStep] {
        var all: [ScheduleStep] = []
        for index in 0..<count {
            let id = "sch_\(UInt64.random(in: 0...UInt64.max))"
            let now = Date()
            let schedule = Schedule(
                id: id, merchantID: merchantID, secureCardReference: card.reference, status: .active,
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

    /// Records a one-off transaction of the fixture's merchant as it stands (`status`, `createdAt`).
    @discardableResult
    func transaction(
        status: TransactionStatus = .pending, amount: Int64 = 1000, currency: String = "EUR", at createdAt: Date = Date(),
        configure: (inout Transaction) -> Void = { _ in }
    ) async throws -> Transaction {
        var transaction = Transaction(
            id: Transaction.makeID(at: createdAt), merchantID: merchantID, type: .sale, amount: amount, currency: try Currency(code: currency),
            gateway: "sandbox", now: createdAt)
        transaction.status = status
        configure(&transaction)
        try await store.insertTransaction(
            transaction,
            audit: AuditEntry(merchantID: merchantID, actor: "test", action: "transaction.created", objectType: "transaction", objectID: transaction.id))
        return transaction
    }
}
