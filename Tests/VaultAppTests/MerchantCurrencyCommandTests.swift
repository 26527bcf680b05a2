import Foundation
import Testing
import Vault
@testable import VaultAppTestSupport

/// `vault merchant create|update --currency CODE` sets the gateway account's currency (USD unless
/// set); an unknown code exits 1 naming the setting and changes nothing.
@Suite struct MerchantCurrencyCommandTests {
    @Test func theCurrencyIsSetAtCreationChangedByUpdateAndRefusedWhenUnknown() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        #expect(try await vault.run(["merchant", "create", "plain"]).status == 0)
        let created = try await vault.run(["merchant", "create", "acme", "--currency", "CAD"])
        #expect(created.status == 0, "\(created.stderr)")
        func currencies() async throws -> [String: String] {
            let merchants = try await MerchantEndpointCommandTests.merchantList(vault)
            return Dictionary(uniqueKeysWithValues: merchants.compactMap { merchant in
                (merchant["name"] as? String).map { ($0, merchant["currency"] as? String ?? "-") }
            })
        }
        #expect(try await currencies() == ["plain": "USD", "acme": "CAD"])
        let refused = try await vault.run(["merchant", "update", "acme", "--currency", "XYZ"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("currency"))
        #expect(try await vault.run(["merchant", "update", "acme", "--currency", "EUR"]).status == 0)
        #expect(try await currencies() == ["plain": "USD", "acme": "EUR"])
    }
}
