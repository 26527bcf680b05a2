public import Vault

/// What binding transaction rows of an earlier build (``TransactionBinding``) needs stored.
public protocol TransactionBindingStore: Sendable {
    /// Up to `limit` transactions (in insertion order) whose row has no binding: written by an
    /// earlier build, or inserted (or stripped of its binding) behind the vault's back.
    func transactionsWithoutBinding(limit: Int) async throws -> [Transaction]
    /// Stores bindings for transaction rows that still have none (a row bound meanwhile keeps its
    /// own), with `audit` when given, in one write.
    func bindTransactionRows(_ bindings: [(id: String, binding: [UInt8])], audit: AuditEntry?) async throws
}
