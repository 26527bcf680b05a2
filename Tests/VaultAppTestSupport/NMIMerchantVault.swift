import Foundation
@testable import GatewayFakes
import Logging
import Vault
@testable import VaultAPI
@testable import VaultApp

/// A vault directory on the engine of the pass, for real `vault` processes, with one merchant
/// (`acme`) on NMI's fake gateway; the master key is passed as `VAULT_MASTER_KEY`.
struct NMIMerchantVault {
    let fake: FakeNMIServer
    let vault: VaultProcess
    let masterKey: String
    let merchant: Merchant
    /// The merchant's admin key.
    let apiKey: String

    /// The configuration the processes use (database and keys of the directory).
    static func configuration(_ vault: VaultProcess, masterKey: String) -> VaultConfiguration {
        var configuration = VaultConfiguration()
        configuration.database = vault.database
        configuration.keys.directory = vault.directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = masterKey
        return configuration
    }

    var configuration: VaultConfiguration { Self.configuration(vault, masterKey: masterKey) }

    /// What a `vault` process of the directory is started with.
    var environment: [String: String] {
        ["VAULT_MASTER_KEY": masterKey, "VAULT_DATABASE": vault.directory.file("data/vault.sqlite"), "VAULT_KEYS_DIR": vault.directory.file("keys")]
    }

    /// A logger that prints nothing.
    static var quiet: Logger {
        var logger = Logger(label: "nmi-merchant-vault")
        logger.logLevel = .critical
        return logger
    }

    /// Starts the fake and creates the merchant through a runtime opened in this process (then closed).
    static func start() async throws -> NMIMerchantVault {
        let fake = try await FakeNMIServer.start()
        let vault = try await VaultProcess.onTestEngine()
        let masterKey = Encoding.base64(RandomBytes.make(32))
        let runtime = try await VaultRuntime.open(configuration: configuration(vault, masterKey: masterKey), logger: quiet, gatewayLogger: quiet, database: .createIfMissing)
        defer { runtime.close() }
        let (merchant, key) = try await runtime.merchants.create(
            name: "acme", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                            verifyOnRegistration: false),
            actor: "test")
        return NMIMerchantVault(fake: fake, vault: vault, masterKey: masterKey, merchant: merchant, apiKey: key.bearer)
    }

    private init(fake: FakeNMIServer, vault: VaultProcess, masterKey: String, merchant: Merchant, apiKey: String) {
        self.fake = fake
        self.vault = vault
        self.masterKey = masterKey
        self.merchant = merchant
        self.apiKey = apiKey
    }

    /// A runtime over the directory in this process; the caller closes it.
    func runtime() async throws -> VaultRuntime {
        try await VaultRuntime.open(configuration: configuration, logger: Self.quiet, gatewayLogger: Self.quiet)
    }
}
