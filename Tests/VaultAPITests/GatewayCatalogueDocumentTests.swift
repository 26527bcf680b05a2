import Foundation
import Payments
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// The OpenAPI document's gateway enum is the catalogue's names.
@Suite struct GatewayCatalogueDocumentTests {
    @Test func theTransactionGatewayEnumEqualsTheCatalogue() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
        let schemas = (root["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let transaction = (schemas?["Transaction"] as? [String: Any])?["properties"] as? [String: Any]
        let gateway = (transaction?["gateway"] as? [String: Any])?["properties"] as? [String: Any]
        let names = try #require((gateway?["name"] as? [String: Any])?["enum"] as? [String])
        #expect(names == GatewayCatalogue.names)
    }

    @Test func configurationRefusesADefaultGatewayOutsideTheCatalogue() throws {
        var configuration = VaultConfiguration()
        configuration.defaults.gateway = "paypal"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        for name in GatewayCatalogue.names {
            configuration.defaults.gateway = name
            try configuration.validate()
        }
    }
}
