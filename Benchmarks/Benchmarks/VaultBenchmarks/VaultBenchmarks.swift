import Benchmark
import Foundation
import Synchronization
import Vault
import VaultSQLite

/// SPEC §12: registering cards in the library (validate, encrypt, fingerprint, insert) against
/// inserting the same rows into SQLite unencrypted, in the same run. One scaled iteration is
/// `batch` cards written by 64 concurrent tasks through the group-commit writer; compare the
/// throughputs (×`batch` for cards per second).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 200
    )

    Benchmark("register \(batch) cards: validate, seal, fingerprint, insert (64 tasks)") { benchmark in
        let fixture = try await RegistrationFixture.shared()
        for iteration in benchmark.scaledIterations {
            await fixture.register(iteration: iteration)
        }
    }

    Benchmark("insert \(batch) card rows unencrypted into SQLite (64 tasks, baseline)") { benchmark in
        let fixture = try await RegistrationFixture.shared()
        for iteration in benchmark.scaledIterations {
            await fixture.insertPlain(iteration: iteration)
        }
    } teardown: {
        try await RegistrationFixture.shared().remove()
    }
}

let batch = 1_000
let concurrency = 64

/// A vault with one merchant, and the pool of valid test PANs registered round-robin.
final class RegistrationFixture: Sendable {
    let directory: URL
    let store: SQLiteStore
    let service: SecureCardService
    let merchant: Merchant
    let pans = ["4242424242424242", "4111111111111111", "5555555555554444", "2223003122003222", "378282246310005", "6011111111111117"]

    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, reference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    private static let instance = Mutex<RegistrationFixture?>(nil)

    /// The fixture, created on first use (inside the benchmark's async context, never blocking a thread).
    static func shared() async throws -> RegistrationFixture {
        if let existing = instance.withLock({ $0 }) { return existing }
        let created = try await RegistrationFixture()
        return instance.withLock { stored in
            if let stored { return stored }
            stored = created
            return created
        }
    }

    private init() async throws {
        let base = ProcessInfo.processInfo.environment["VAULT_BENCHMARK_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("vault-registration-benchmark-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("vault.sqlite").path)
        try store.database.writeNow { connection in
            try connection.execute("""
                CREATE TABLE plain_cards (id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, merchant_reference TEXT NOT NULL, pan TEXT NOT NULL,
                    holder_name TEXT, card_type TEXT NOT NULL, masked_number TEXT NOT NULL, expiry_month INTEGER NOT NULL,
                    expiry_year INTEGER NOT NULL, customer TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)
                """)
        }
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: try SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox",
            gateways: MerchantGatewayRules([(name: "sandbox", credentialNames: [])]))
        merchant = try await merchants.create(name: "bench", role: .admin, settings: .init(verifyOnRegistration: false), actor: "bench").merchant
        service = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
    }

    func register(iteration: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: batch, by: concurrency) {
                        let request = SecureCardRegistration(
                            merchantReference: "r\(iteration)-\(index)",
                            source: CardSource(method: "keyed", card: CardInput(number: self.pans[index % self.pans.count], expiryDate: "1230", holderName: "Bench Mark")),
                            customer: Customer(email: "bench@example.com", country: "US"), verify: false)
                        let card = try? await self.service.register(request, merchant: self.merchant, actor: "bench")
                        blackHole(card)
                    }
                }
            }
        }
    }

    func insertPlain(iteration: Int) async {
        let merchantID = merchant.id
        let pans = self.pans
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: batch, by: concurrency) {
                        let pan = pans[index % pans.count]
                        let now = Timestamp.string(Date())
                        try? await self.store.database.write { connection in
                            try connection.run(
                                """
                                INSERT INTO plain_cards (id, merchant_id, merchant_reference, pan, holder_name, card_type, masked_number, expiry_month,
                                    expiry_year, customer, created_at, updated_at) VALUES (\("p\(iteration)-\(index)"), \(merchantID),
                                    \("r\(iteration)-\(index)"), \(pan), \("Bench Mark"), \("visa"),
                                    \(String(pan.prefix(6)) + "******" + String(pan.suffix(4))), \(12), \(2030),
                                    \(#"{"email":"bench@example.com","country":"US"}"#), \(now), \(now))
                                """)
                        }
                    }
                }
            }
        }
    }

    func remove() {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
