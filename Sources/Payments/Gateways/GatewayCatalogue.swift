public import Vault

/// The one list of gateways this build can talk to.
///
/// Merchant validation (``merchantRules``), configuration, CLI help, the OpenAPI document's
/// enum and ``GatewayRegistry`` all read it. Adding a gateway is its folder (adapter and its
/// ``GatewayEntry``) plus one line here.
public enum GatewayCatalogue {
    /// Every gateway, in the order help texts list them.
    public static let entries: [GatewayEntry] = [
        SandboxGateway.catalogueEntry,
        AuthorizeNetGateway.catalogueEntry,
        NMIGateway.catalogueEntry,
        BridgePayGateway.catalogueEntry,
    ]

    /// The gateway names, in catalogue order.
    public static var names: [String] { entries.map(\.name) }

    /// The entry for a configured name (case and surrounding spaces ignored; aliases accepted).
    public static func entry(configuredName: String) -> GatewayEntry? {
        let trimmed = configuredName.trimmingASCIISpaces().lowercased()
        return entries.first { $0.name == trimmed || $0.aliases.contains(trimmed) }
    }

    /// The entry named exactly `name`.
    public static func entry(named name: String) -> GatewayEntry? {
        entries.first { $0.name == name }
    }

    /// What merchant validation in `Vault` needs: the names and each gateway's credential names.
    public static var merchantRules: MerchantGatewayRules {
        MerchantGatewayRules(entries.map { (name: $0.name, credentialNames: $0.credentialNames) },
                             currencies: Dictionary(entries.compactMap { entry in entry.preChecks.currencies.map { (entry.name, $0) } },
                                                    uniquingKeysWith: { first, _ in first }))
    }

    /// "sandbox, authorizenet or nmi", for help texts and messages.
    public static var namesSentence: String { MerchantGatewayRules.sentence(names) }

    /// "authorizenet: name, transactionKey; nmi: security_key" (gateways without credentials left out).
    public static var credentialsSentence: String {
        entries.filter { !$0.credentialNames.isEmpty }
            .map { "\($0.name): " + $0.credentialNames.joined(separator: ", ") }
            .joined(separator: "; ")
    }
}
