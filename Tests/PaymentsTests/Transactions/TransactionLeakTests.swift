import Foundation
@testable import GatewayFakes
import Logging
@testable import Payments
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// Sales, refunds and voids through every adapter — the sandbox and the real wire protocols
/// against their fakes on loopback — then the database (on SQLite its file and WAL, on PostgreSQL
/// every row of every table as text) and every log line are scanned for the card numbers, CVVs and
/// gateway credentials used.
@Suite struct TransactionLeakTests {
    struct ApproveAll: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .verified(CardVerificationRecord(status: "verified", gateway: "stub", transactionId: nil, avsResult: nil, cvvResult: nil, verifiedAt: Date()))
        }
    }

    static let cards = [("4111111111111111", "737"), ("5555555555554444", "373"), ("378282246310005", "7373")]

    @Test func noCardDataOrCredentialReachesTheDatabaseOrTheLogsThroughAnyAdapter() async throws {
        let nmi = try await FakeNMIServer.start()
        let authorizeNet = try await FakeAuthorizeNetServer.start()
        let directory = NSTemporaryDirectory() + "leak-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = CapturedLog()
        var logger = Logger(label: "leak", factory: { _ in CapturingLogHandler(log: log) })
        logger.logLevel = .trace

        let database = try await TestDatabase(path: directory + "/vault.sqlite")
        let store = database.storage
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        let cards = SecureCardService(store: store, keyring: keyring, verifier: ApproveAll())
        let gateways = MerchantGateways(registry: GatewayRegistry(logger: logger), merchants: merchants)
        let service = TransactionService(store: store, cards: cards, gateways: gateways)
        let configured: [(String, MerchantSettings)] = [
            ("sandbox", MerchantSettings(gateway: "sandbox")),
            ("nmi", MerchantSettings(gateway: "nmi", gatewayURL: nmi.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey])),
            ("authorizenet", MerchantSettings(
                gateway: "authorizenet", gatewayURL: authorizeNet.url,
                gatewayCredentials: ["name": FakeAuthorizeNetServer.apiLoginID, "transactionKey": FakeAuthorizeNetServer.transactionKey])),
        ]
        var approved = 0
        for (name, settings) in configured {
            let merchant = try await merchants.create(name: name, role: .admin, settings: settings, actor: "test").merchant
            for (index, card) in Self.cards.enumerated() {
                let request = try NewTransaction(
                    type: "sale", amount: Int64(1000 + index), currency: "USD",
                    source: CardSource(method: "keyed", card: CardInput(number: card.0, expiryDate: "1230", holderName: "Ada Lovelace", cvv: card.1)),
                    registration: NewTransaction.SaleRegistration(merchantReference: "\(name)-\(index)"), merchant: merchant)
                let sale = try await service.create(request, merchant: merchant, actor: "test")
                #expect(sale.status == .approved, "\(name) sale \(index)")
                #expect(sale.secureCardReference != nil)
                approved += 1
                // A full refund of an unsettled sale: the sandbox and NMI (which accepts refunds
                // pending settlement) refund; Authorize.Net refuses and the service voids instead.
                let refund = try await service.refund(id: sale.id, amount: nil, merchant: merchant, actor: "test")
                #expect(refund.status == .approved, "\(name) refund \(index)")
                #expect(refund.type == (name == "authorizenet" ? .void : .refund), "\(name) refund \(index) as \(refund.type)")
                let byToken = try NewTransaction(
                    type: "authorize", amount: 500, currency: "USD", secureCardReference: sale.secureCardReference ?? "", merchant: merchant)
                let auth = try await service.create(byToken, merchant: merchant, actor: "test")
                _ = try await service.void(id: auth.id, merchant: merchant, actor: "test")
            }
        }
        #expect(approved == 9)
        await nmi.stop()
        await authorizeNet.stop()

        let secrets = Self.cards.flatMap { [$0.0] } + [FakeNMIServer.securityKey, FakeAuthorizeNetServer.transactionKey]
        switch database.engine {
        case .sqlite:
            // The file itself, freed pages included.
            var scanned = 0
            for file in ["vault.sqlite", "vault.sqlite-wal"] {
                guard let data = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
                scanned += 1
                for secret in secrets {
                    #expect(data.range(of: Data(secret.utf8)) == nil, "a secret ending \(secret.suffix(3)) is in \(file)")
                }
            }
            #expect(scanned >= 1)
        case .postgres:
            // No single file to read: every row of every table, as text.
            let rows = try await database.sql.everyRowAsText()
            #expect(rows.contains("transactions: "), "the dump holds the transactions written")
            for secret in secrets {
                #expect(!rows.contains(secret), "a secret ending \(secret.suffix(3)) is in the database's rows")
            }
        }
        let text = log.text
        for secret in secrets {
            #expect(!text.contains(secret), "a secret ending \(secret.suffix(3)) is in the logs")
        }
        for (_, cvv) in Self.cards {
            #expect(!text.contains("cvv=\(cvv)") && !text.contains("cardCode"), "a CVV reached the logs")
        }
        database.sqlite?.close()
    }
}
