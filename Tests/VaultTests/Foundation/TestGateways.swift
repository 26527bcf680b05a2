import Vault

/// Gateway rules for Vault's own tests, which cannot see the gateway catalogue in `Payments`
/// (the runtime injects `GatewayCatalogue.merchantRules`). A fixture, not a second list: these
/// tests check how `MerchantService` applies whatever rules it is given.
enum TestGateways {
    static let rules = MerchantGatewayRules([
        (name: "sandbox", credentialNames: []),
        (name: "authorizenet", credentialNames: ["name", "transactionKey"]),
        (name: "nmi", credentialNames: ["security_key"]),
    ])
}
