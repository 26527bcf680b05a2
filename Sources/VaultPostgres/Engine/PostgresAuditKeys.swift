import Vault
import Synchronization

/// The audit chain's key for one `PostgresStore`: the custodian that unwraps it (the keyring
/// opened over the store) and, once committed and unwrapped, the key itself.
final class PostgresAuditKeys: Sendable {
    static let purpose = "audit"

    private struct State {
        var custodian: (any SystemKeyCustodian)?
        var key: SecureBytes?
    }

    private let state = Mutex(State())

    /// Makes `custodian` the one that unwraps the key, unless one is attached already.
    func attach(_ custodian: any SystemKeyCustodian) {
        state.withLock { state in
            if state.custodian == nil { state.custodian = custodian }
        }
    }

    /// The committed key, when unwrapped before.
    var cached: SecureBytes? { state.withLock { $0.key } }

    /// Keeps a committed key.
    func remember(_ key: SecureBytes) {
        state.withLock { state in
            if state.key == nil { state.key = key }
        }
    }

    /// The attached custodian.
    /// - Throws: `PostgresStoreError.misuse` when no keyring is open over the store.
    func custodian() throws -> any SystemKeyCustodian {
        guard let custodian = state.withLock({ $0.custodian }) else {
            throw PostgresStoreError.misuse("the audit chain's key is not available: no keyring is open over this store")
        }
        return custodian
    }
}
