public import Foundation
import Synchronization
public import Vault
public import VaultSQLite

/// The registration workload: registering cards in the library (validate, seal, fingerprint,
/// insert) against inserting the same rows into SQLite unencrypted. One round is `batch` cards
/// written by ``concurrency`` concurrent tasks through the group-commit writer.
///
/// A vault with one merchant; the valid test PANs are registered round-robin.
public final class RegistrationFixture: Sendable {
    /// Concurrent registering tasks per round.
    public static let concurrency = 64

    /// Cards per round.
    public let batch: Int
    /// The fixture's own directory, removed by ``remove()``.
    public let directory: URL
    /// The vault's store, with an extra `plain_cards` table for the unencrypted baseline.
    public let store: SQLiteStore
    /// Registration as the API runs it.
    public let service: SecureCardService
    /// The one merchant the cards are registered for.
    public let merchant: Merchant
    let pans = ["4242424242424242", "4111111111111111", "5555555555554444", "2223003122003222", "378282246310005", "6011111111111117"]

    /// Registration without a gateway: the workload never asks for verification.
    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    private static let instance = Mutex<RegistrationFixture?>(nil)

    /// The fixture of 1,000 cards per round, created on first use (inside the benchmark's async
    /// context, never blocking a thread).
    public static func shared() async throws -> RegistrationFixture {
        if let existing = instance.withLock({ $0 }) { return existing }
        let created = try await RegistrationFixture(batch: 1_000)
        return instance.withLock { stored in
            if let stored { return stored }
            stored = created
            return created
        }
    }

    /// A fresh vault registering `batch` cards per round.
    public init(batch: Int) async throws {
        self.batch = batch
        directory = BenchmarkDirectory.make("vault-registration-benchmark")
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

    /// Registers round `round`'s `batch` cards (merchant references `r<round>-<index>`); returns
    /// how many were registered.
    public func register(round: Int) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<Self.concurrency {
                group.addTask {
                    var registered = 0
                    for index in stride(from: worker, to: self.batch, by: Self.concurrency) {
                        let request = SecureCardRegistration(
                            merchantReference: "r\(round)-\(index)",
                            source: CardSource(
                                method: "keyed", card: CardInput(number: self.pans[index % self.pans.count], expiryDate: "1230", holderName: "Bench Mark")),
                            customer: Customer(email: "bench@example.com", country: "US"), verify: false)
                        if (try? await self.service.register(request, merchant: self.merchant, actor: "bench")) != nil { registered += 1 }
                    }
                    return registered
                }
            }
            return await group.reduce(0, +)
        }
    }

    /// The baseline: inserts round `round`'s `batch` rows unencrypted; returns how many were inserted.
    public func insertPlain(round: Int) async -> Int {
        let merchantID = merchant.id
        let pans = self.pans
        let batch = self.batch
        return await withTaskGroup(of: Int.self) { group in
            for worker in 0..<Self.concurrency {
                group.addTask {
                    var inserted = 0
                    for index in stride(from: worker, to: batch, by: Self.concurrency) {
                        let pan = pans[index % pans.count]
                        let now = Timestamp.string(Date())
                        do {
                            _ = try await self.store.database.write { connection in
                                try connection.run(
                                    """
                                    INSERT INTO plain_cards (id, merchant_id, merchant_reference, pan, holder_name, card_type, masked_number, expiry_month,
                                        expiry_year, customer, created_at, updated_at) VALUES (\("p\(round)-\(index)"), \(merchantID),
                                        \("r\(round)-\(index)"), \(pan), \("Bench Mark"), \("visa"),
                                        \(String(pan.prefix(6)) + "******" + String(pan.suffix(4))), \(12), \(2030),
                                        \(#"{"email":"bench@example.com","country":"US"}"#), \(now), \(now))
                                    """)
                            }
                            inserted += 1
                        } catch {
                            // Counted as not inserted: the caller compares the count with the batch.
                        }
                    }
                    return inserted
                }
            }
            return await group.reduce(0, +)
        }
    }

    /// Closes the store and removes its directory.
    public func remove() {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
