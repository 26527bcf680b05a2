import Foundation
import Logging
import Payments
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// A verification through the merchant's gateway keeps the approval's network transaction id as
/// the stored credential of the card it was asked for, by the token the caller names (never by
/// reading a token out of another string). On SQLite, and on PostgreSQL with `VAULT_TEST_ENGINE=postgres`.
@Suite struct GatewayCardVerifierTests {
    struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    @Test func anApprovedVerificationKeepsTheCredentialUnderTheGivenCardToken() async throws {
        let directory = NSTemporaryDirectory() + "verifier-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = try await TestDatabase(path: directory + "/vault.sqlite")
        defer {
            database.sqlite?.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let store = database.storage
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        let merchant = try await merchants.create(
            name: "m", role: .admin, settings: MerchantSettings(gateway: "sandbox", verifyOnRegistration: false), actor: "test").merchant
        let cards = SecureCardService(store: store, keyring: keyring, verifier: NoVerification())
        let source = CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace"))
        let first = try await cards.register(SecureCardRegistration(merchantReference: "one", source: source), merchant: merchant, actor: "test")
        let second = try await cards.register(SecureCardRegistration(merchantReference: "two", source: source), merchant: merchant, actor: "test")
        let credentials = StoredCredentials(store: store, keyring: keyring)
        let verifier = GatewayCardVerifier(
            gateways: MerchantGateways(registry: GatewayRegistry(), merchants: merchants), store: store, storedCredentials: credentials,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

        let result = await verifier.verify(try source.capture(), merchant: merchant, secureCardReference: second.reference)

        guard case .verified = result else {
            Issue.record("the sandbox did not approve the verification: \(result)")
            return
        }
        #expect(
            try await credentials.originalNetworkTransactionID(secureCardReference: second.reference, merchantID: merchant.id, gateway: "sandbox")
                != nil)
        #expect(
            try await credentials.originalNetworkTransactionID(secureCardReference: first.reference, merchantID: merchant.id, gateway: "sandbox")
                == nil, "another card of the same number keeps nothing")
    }
}
