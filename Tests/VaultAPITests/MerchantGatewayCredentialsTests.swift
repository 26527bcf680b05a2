import Foundation
import StorageTestSupport
import Testing
import Vault
@testable import VaultApp
@testable import VaultAppTestSupport

/// A merchant on a gateway without every credential that gateway needs is refused when created
/// or changed: accepted, every charge of every nightly run would fail on a configuration error.
@Suite struct MerchantGatewayCredentialsTests {
    @Test func aMerchantOnAGatewayWithoutItsCredentialsIsRefusedAndNothingIsCreated() async throws {
        let fixture = try await APIFixture()
        for (gateway, credentials) in [("nmi", [:]), ("nmi", ["security_key": "  "]), ("authorizenet", ["name": "login"])] {
            await #expect(throws: MerchantSettingError.self) {
                _ = try await fixture.runtime.merchants.create(
                    name: "shop", role: .admin, settings: .init(gateway: gateway, gatewayCredentials: credentials), actor: "test")
            }
        }
        #expect(try await fixture.runtime.store.merchant(named: "shop") == nil)
        do {
            _ = try await fixture.runtime.merchants.create(name: "shop", role: .admin, settings: .init(gateway: "authorizenet"), actor: "test")
        } catch let error as MerchantSettingError {
            #expect(error.setting == "gateway-credential")
            #expect(error.message == "gateway authorizenet needs name, transactionKey (give --gateway-credential name=... --gateway-credential transactionKey=...)")
        }
        // With them, the same merchant is created.
        let (created, _) = try await fixture.runtime.merchants.create(
            name: "shop", role: .admin, settings: .init(gateway: "nmi", gatewayCredentials: ["security_key": "k"]), actor: "test")
        #expect(created.gateway.name == "nmi")
    }

    @Test func anUpdateToAGatewayWithoutItsCredentialsIsRefusedAndChangesNothing() async throws {
        let fixture = try await APIFixture()
        // merchant-a is on the sandbox, which needs none: moving it to NMI needs NMI's key.
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(gateway: "nmi"), actor: "test")
        }
        #expect(try await fixture.runtime.store.merchant(named: "merchant-a")?.gateway.name == "sandbox")
        _ = try await fixture.runtime.merchants.update(
            name: "merchant-a", settings: .init(gateway: "nmi", gatewayCredentials: ["security_key": "k"]), actor: "test")
        // Replacing the credentials with a set that lacks one is refused; the kept key still counts.
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(gatewayCredentials: [:]), actor: "test")
        }
        _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(gateway: "nmi", timeZone: "Europe/Paris"), actor: "test")
        let merchant = try #require(try await fixture.runtime.store.merchant(named: "merchant-a"))
        #expect(try await fixture.runtime.merchants.gatewayCredentials(merchantID: merchant.id) == ["security_key": "k"])
    }

    @Test func theCommandRefusesAnNMIMerchantWithoutItsSecurityKey() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let refused = try await vault.run(["merchant", "create", "shop", "--gateway", "nmi"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("gateway-credential: gateway nmi needs security_key"), "\(refused.stderr)")
        let list = try await vault.run(["merchant", "list", "--json"])
        #expect(!list.stdout.contains("shop"))
    }
}
