import Payments
import Testing
import Vault

/// One catalogue is the only list of gateways; the registry, merchant
/// validation and help texts read it.
@Suite struct GatewayCatalogueTests {
    @Test func namesAreUniqueLowerCaseAndIncludeEveryAdapter() {
        let names = GatewayCatalogue.names
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty })
        #expect(Set(names).isSuperset(of: ["sandbox", "authorizenet", "nmi", "bridgepay"]))
    }

    @Test func theRegistryBuildsEveryEntryWithItsListedCredentials() throws {
        let registry = GatewayRegistry()
        for entry in GatewayCatalogue.entries {
            let credentials = Dictionary(uniqueKeysWithValues: entry.credentialNames.map { ($0, "value-\($0)") })
            let adapter = try registry.adapter(for: GatewayConfiguration(name: entry.name, credentials: credentials))
            #expect(adapter.name == entry.name)
        }
    }

    @Test func everyListedCredentialIsRequired() {
        let registry = GatewayRegistry()
        for entry in GatewayCatalogue.entries {
            for missing in entry.credentialNames {
                let credentials = Dictionary(uniqueKeysWithValues: entry.credentialNames.filter { $0 != missing }.map { ($0, "v") })
                #expect(throws: GatewayConfigurationError.missingCredential(gateway: entry.name, key: missing)) {
                    try registry.adapter(for: GatewayConfiguration(name: entry.name, credentials: credentials))
                }
            }
        }
    }

    @Test func merchantRulesAreTheCatalogue() {
        let rules = GatewayCatalogue.merchantRules
        #expect(rules.names == GatewayCatalogue.names)
        for entry in GatewayCatalogue.entries {
            #expect(rules.credentialNames[entry.name] == Set(entry.credentialNames))
        }
        #expect(!rules.knows("stripe"))
    }

    @Test func helpSentencesNameEveryGatewayAndCredential() {
        #expect(GatewayCatalogue.namesSentence == "sandbox, authorizenet, nmi or bridgepay")
        #expect(GatewayCatalogue.credentialsSentence == "authorizenet: name, transactionKey; nmi: security_key; "
            + "bridgepay: username, password, merchantCode, merchantAccountCode")
    }

    @Test(arguments: [("NMI", "nmi"), (" authorize.net ", "authorizenet"), ("authorize_net", "authorizenet")])
    func configuredNamesAndAliasesFindTheirEntry(_ configured: String, _ name: String) {
        #expect(GatewayCatalogue.entry(configuredName: configured)?.name == name)
    }

    @Test(arguments: ["", "stripe", "nmi2"])
    func unknownNamesFindNoEntry(_ configured: String) {
        #expect(GatewayCatalogue.entry(configuredName: configured) == nil)
    }
}
