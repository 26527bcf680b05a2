/// The gateways a merchant may name and the credential names each accepts.
///
/// `Vault` does not know the gateways: the runtime builds this value from the gateway catalogue
/// (`GatewayCatalogue.merchantRules` in `Payments`) and hands it to ``MerchantService``.
public struct MerchantGatewayRules: Sendable, Equatable {
    /// The gateway names, in the order messages list them.
    public let names: [String]
    /// Credential names by gateway name.
    public let credentialNames: [String: Set<String>]

    /// The currencies each gateway takes, by gateway name; a gateway not listed takes any.
    public let currencies: [String: Set<String>]

    /// Rules from each gateway's name and credential names, in order, and the currencies of the
    /// gateways that take only some.
    public init(_ gateways: [(name: String, credentialNames: [String])], currencies: [String: Set<String>] = [:]) {
        names = gateways.map(\.name)
        credentialNames = Dictionary(gateways.map { ($0.name, Set($0.credentialNames)) }, uniquingKeysWith: { first, _ in first })
        self.currencies = currencies
    }

    /// Why `gateway` cannot take `currency`, or `nil` when it can.
    public func currencyRefusal(_ currency: String, gateway: String) -> String? {
        guard let taken = currencies[gateway], !taken.contains(currency) else { return nil }
        return "gateway \(gateway) takes " + Self.sentence(taken.sorted()) + " only, not \(currency)"
    }

    /// The credentials `gateway` needs that `credentials` lacks or leaves blank, sorted: every
    /// credential a gateway names is required (its adapter cannot be built without it).
    public func missingCredentials(_ credentials: [String: String], gateway: String) -> [String] {
        (credentialNames[gateway] ?? []).filter { name in
            (credentials[name] ?? "").allSatisfy(\.isWhitespace)
        }.sorted()
    }

    /// Whether `name` is a known gateway.
    public func knows(_ name: String) -> Bool { credentialNames[name] != nil }

    /// "a, b or c".
    public static func sentence(_ names: [String]) -> String {
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
