import Synchronization
public import Vault

/// Finds the adapter a merchant is configured for, with its credentials opened from the vault.
public struct MerchantGateways: Sendable {
    /// The adapters.
    public let registry: GatewayRegistry
    private let merchants: MerchantService
    private let fixed: (any GatewayAdapter)?
    private let partialVoids = PartialVoidsByGateway()

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

    /// Whether the merchant's gateway reverses part of a transaction (``GatewayAdapter/supportsPartialVoid``).
    /// It belongs to the kind of adapter, so it is asked of one adapter per gateway and remembered:
    /// answering a transaction does not open the merchant's credentials again. False when the
    /// merchant's gateway is not usable.
    public func supportsPartialVoid(for merchant: Merchant) async -> Bool {
        if let fixed { return fixed.supportsPartialVoid }
        let gateway = GatewayCatalogue.entry(configuredName: merchant.gateway.name)?.name ?? merchant.gateway.name
        if let known = partialVoids.values.withLock({ $0[gateway] }) { return known }
        guard let adapter = try? await adapter(for: merchant) else { return false }
        partialVoids.values.withLock { $0[gateway] = adapter.supportsPartialVoid }
        return adapter.supportsPartialVoid
    }

    /// The merchant's adapter.
    /// - Throws: `GatewayConfigurationError` (a missing credential is named, never shown).
    public func adapter(for merchant: Merchant) async throws -> any GatewayAdapter {
        if let fixed { return fixed }
        let credentials = try await merchants.gatewayCredentials(merchantID: merchant.id)
        return try registry.adapter(for: GatewayConfiguration(
            name: merchant.gateway.name, url: merchant.gateway.url, credentials: credentials, timeout: registry.timeout))
    }
}

/// What each gateway's adapters answered about partial voids, shared by the copies of one resolver.
private final class PartialVoidsByGateway: Sendable {
    let values = Mutex<[String: Bool]>([:])
}
