/// The gateways a merchant may name and the credential names each accepts.
///
/// `Vault` does not know the gateways: the runtime builds this value from the gateway catalogue
/// (`GatewayCatalogue.merchantRules` in `Payments`) and hands it to ``MerchantService``.
public struct MerchantGatewayRules: Sendable, Equatable {
    /// The gateway names, in the order messages list them.
    public let names: [String]
    /// Credential names by gateway name.
    public let credentialNames: [String: Set<String>]

    /// Rules from each gateway's name and credential names, in order.
    public init(_ gateways: [(name: String, credentialNames: [String])]) {
        names = gateways.map(\.name)
        credentialNames = Dictionary(gateways.map { ($0.name, Set($0.credentialNames)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `name` is a known gateway.
    public func knows(_ name: String) -> Bool { credentialNames[name] != nil }

    /// "a, b or c".
    public static func sentence(_ names: [String]) -> String {
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
