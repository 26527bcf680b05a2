public import Vault

extension TransactionBinding {
    /// The audit action recording that a merchant's transaction rows of an earlier build were bound.
    public static let legacyRowsBoundAction = "transactions.bound"

    /// Binds the transaction rows an earlier build wrote without a binding, as they stand, once per
    /// merchant (``LegacyRowBinder``: a `transactions.bound` audit event once all its rows are bound;
    /// a merchant created by this build says so in its `merchant.created` event); run at start-up,
    /// before serving, as schedule rows are.
    ///
    /// An unbound row of a merchant already bound was inserted (or stripped of its binding) since,
    /// by someone writing to the database: it is left unbound, so any follow-up of it is refused,
    /// and returned in `refused`. Rows of off-boarded merchants are left: nothing of theirs can be sent.
    public func bindLegacyRows(
        in store: any TransactionBindingStore & AuditStore, batchSize: Int = 500
    ) async throws -> (bound: Int, refused: [String]) {
        let binder = LegacyRowBinder<Transaction>(
            markerAction: Self.legacyRowsBoundAction, boundAtCreation: MerchantService.transactionsBoundDetail,
            identity: { ($0.id, $0.merchantID) },
            unboundRows: { try await store.transactionsWithoutBinding(limit: $0) },
            bind: { transactions, _ in
                var bindings: [(id: String, binding: [UInt8])] = []
                for transaction in transactions {
                    if let binding = try await self.bound(transaction).binding { bindings.append((transaction.id, binding)) }
                }
                try await store.bindTransactionRows(bindings, audit: nil)
                return ["transactions": bindings.count]
            })
        return try await binder.run(audit: store, batchSize: batchSize)
    }
}
