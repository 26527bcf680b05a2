public import Vault

/// Finds the adapter a merchant is configured for, with its credentials opened from the vault.
public struct MerchantGateways: Sendable {
    /// The adapters.
    public let registry: GatewayRegistry
    private let merchants: MerchantService

    /// Creates the resolver.
    public init(registry: GatewayRegistry, merchants: MerchantService) {
        self.registry = registry
        self.merchants = merchants
    }

    /// The merchant's adapter.
    /// - Throws: `GatewayConfigurationError` (a missing credential is named, never shown).
    public func adapter(for merchant: Merchant) async throws -> any GatewayAdapter {
        let credentials = try await merchants.gatewayCredentials(merchantID: merchant.id)
        return try registry.adapter(for: GatewayConfiguration(name: merchant.gateway.name, url: merchant.gateway.url, credentials: credentials))
    }
}
