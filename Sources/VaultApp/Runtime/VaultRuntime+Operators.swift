public import Vault

extension VaultRuntime {
    /// Operators and console sign-ins over the runtime's store and keyring, with the configured
    /// `console` limits.
    public var operators: OperatorService {
        OperatorService(store: store, keyring: keyring, policy: configuration.console)
    }
}
