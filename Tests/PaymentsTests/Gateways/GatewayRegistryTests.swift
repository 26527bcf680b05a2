@testable import GatewayFakes
import Payments
import Testing
import Vault

@Suite struct GatewayRegistryTests {
    typealias F = GatewayFixtures

    @Test(arguments: [("sandbox", "sandbox"), ("SANDBOX", "sandbox"), (" nmi ", "nmi"), ("authorizenet", "authorizenet"),
                      ("Authorize.Net", "authorizenet")])
    func adaptersAreChosenByName(_ configured: String, _ expected: String) throws {
        let registry = GatewayRegistry()
        let adapter = try registry.adapter(for: GatewayConfiguration(
            name: configured, credentials: ["name": "login", "transactionKey": "key", "security_key": "key"]))
        #expect(adapter.name == expected)
    }

    @Test func anUnknownGatewayIsAConfigurationError() {
        #expect(throws: GatewayConfigurationError.unknownGateway("stripe")) {
            try GatewayRegistry().adapter(for: GatewayConfiguration(name: "stripe"))
        }
    }

    @Test(arguments: [("authorizenet", ["transactionKey": "TK-SECRET"], "name"),
                      ("authorizenet", ["name": "LOGIN-SECRET", "transactionKey": " "], "transactionKey"),
                      ("nmi", ["securityKey": "NMI-SECRET"], "security_key")])
    func aMissingCredentialIsNamedByKeyNeverByValue(_ gateway: String, _ credentials: [String: String], _ key: String) {
        let configuration = GatewayConfiguration(name: gateway, credentials: credentials)
        do {
            _ = try GatewayRegistry().adapter(for: configuration)
            Issue.record("a configuration without '\(key)' was accepted")
        } catch {
            #expect(error == .missingCredential(gateway: gateway, key: key))
            #expect(error.description.contains("'\(key)'"))
            for value in credentials.values where value.count > 1 {
                expectAbsent(value, in: F.allRenderings(of: error), "the error")
            }
        }
    }

    @Test(arguments: ["ftp://example.test", "not a url", "https://"])
    func anEndpointOverrideMustBeAnHTTPURL(_ url: String) {
        #expect(throws: GatewayConfigurationError.invalidURL(gateway: "nmi")) {
            try GatewayRegistry().adapter(for: GatewayConfiguration(name: "nmi", url: url, credentials: ["security_key": "k"]))
        }
    }

    @Test func authorizeNetDefaultsToProductionAndAppendsTheEndpointPathToABareHost() throws {
        let registry = GatewayRegistry()
        let credentials = ["name": "login", "transactionKey": "key"]
        let production = try #require(try registry.adapter(for: GatewayConfiguration(name: "authorizenet", credentials: credentials))
            as? AuthorizeNetGateway)
        #expect(production.endpoint == AuthorizeNetGateway.productionURL)
        let local = try #require(try registry.adapter(for: GatewayConfiguration(
            name: "authorizenet", url: "http://127.0.0.1:8099", credentials: credentials)) as? AuthorizeNetGateway)
        #expect(local.endpoint == "http://127.0.0.1:8099/xml/v1/request.api")
        let sandbox = try #require(try registry.adapter(for: GatewayConfiguration(
            name: "authorizenet", url: AuthorizeNetGateway.sandboxURL, credentials: credentials)) as? AuthorizeNetGateway)
        #expect(sandbox.endpoint == "https://apitest.authorize.net/xml/v1/request.api")
    }

    @Test func everySandboxMerchantSharesOneSandboxAndItsMemory() async throws {
        let registry = GatewayRegistry()
        let request = F.charge("shared-key", reference: "INV-SHARED")
        let first = try await registry.adapter(for: GatewayConfiguration(name: "sandbox")).sale(request)
        let second = try await registry.adapter(for: GatewayConfiguration(name: "sandbox")).sale(request)
        #expect(first == second)
        #expect(try await registry.sandbox.transactionCount == 1)
    }

    @Test func configurationsAndAdaptersNeverPrintCredentials() throws {
        let configuration = GatewayConfiguration(
            name: "authorizenet", url: "https://apitest.authorize.net/xml/v1/request.api",
            credentials: ["name": "LOGIN-SECRET-1", "transactionKey": "TRANSACTION-KEY-SECRET"])
        let nmi = GatewayConfiguration(name: "nmi", credentials: ["security_key": "SECURITY-KEY-SECRET"])
        let registry = GatewayRegistry()
        let renderings = [F.allRenderings(of: configuration), F.allRenderings(of: nmi),
                          F.allRenderings(of: try registry.adapter(for: configuration)),
                          F.allRenderings(of: try registry.adapter(for: nmi))].joined(separator: "\n")
        for secret in ["LOGIN-SECRET-1", "TRANSACTION-KEY-SECRET", "SECURITY-KEY-SECRET"] {
            expectAbsent(secret, in: renderings, "a configuration or adapter description")
        }
        #expect(String(describing: configuration).contains("transactionKey"))
    }

    @Test func requestsAndCardsPrintMaskedNumbersOnly() {
        let card = F.card("4111111111111111", cvv: "737", zip: "98004", holder: "Ada Lovelace")
        let charge = F.charge("k", reference: "INV-P", card: card)
        let followUp = F.followUp("k", reference: "INV-P", transactionID: "1", card: card)
        let text = [F.allRenderings(of: card), F.allRenderings(of: charge), F.allRenderings(of: followUp)]
            .joined(separator: "\n")
        expectAbsent("4111111111111111", in: text, "a request description")
        expectAbsent("737", in: text, "a request description")
        #expect(text.contains("411111******1111"))
    }
}
