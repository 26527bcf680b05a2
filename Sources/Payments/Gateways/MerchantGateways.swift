public import Vault

/// Finds the adapter a merchant is configured for, with its credentials opened from the vault.
public struct MerchantGateways: Sendable {
    /// The adapters.
    public let registry: GatewayRegistry
    private let merchants: MerchantService
    private let fixed: (any GatewayAdapter)?

    /// Creates the resolver.
    public init(registry: GatewayRegistry, merchants: MerchantService) {
        self.registry = registry
        self.merchants = merchants
        fixed = nil
    }

    /// Creates a resolver that gives every merchant `adapter`, whatever its configuration: for
    /// tests of behaviour that depends on an adapter's capabilities (partial voids, credits).
    public init(every adapter: any GatewayAdapter, registry: GatewayRegistry, merchants: MerchantService) {
        self.registry = registry
        self.merchants = merchants
        fixed = adapter
    }

    /// The merchant's adapter.
    /// - Throws: `GatewayConfigurationError` (a missing credential is named, never shown).
    public func adapter(for merchant: Merchant) async throws -> any GatewayAdapter {
        if let fixed { return fixed }
        let credentials = try await merchants.gatewayCredentials(merchantID: merchant.id)
        return try registry.adapter(for: GatewayConfiguration(name: merchant.gateway.name, url: merchant.gateway.url, credentials: credentials))
    }
}
