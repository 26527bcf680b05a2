public import Vault

extension TransactionBinding {
    /// The audit action recording that a merchant's transaction rows of an earlier build were bound.
    public static let legacyRowsBoundAction = "transactions.bound"

    /// Binds the transaction rows an earlier build wrote without a binding, as they stand, once per
    /// merchant (recorded by a `transactions.bound` audit event in the merchant's keyed chain,
    /// written once all its rows are bound; a merchant created by this build says so in its
    /// `merchant.created` event); run at start-up, before serving, as schedule rows are.
    ///
    /// An unbound row of a merchant already bound was not written by an earlier build but inserted
    /// (or stripped of its binding) since, by someone writing to the database: it is left unbound,
    /// so any follow-up of it is refused, and returned in `refused`. Rows of off-boarded merchants
    /// (keys destroyed) are left: nothing of theirs can be sent.
    public func bindLegacyRows(
        in store: any TransactionBindingStore & AuditStore, batchSize: Int = 500
    ) async throws -> (bound: Int, refused: [String]) {
        var bound = 0
        var left: Set<String> = []
        var refused: [String] = []
        var merchantsBound: [String: Bool] = [:]
        var upgraded: [String: Int] = [:]
        while true {
            let rows = try await store.transactionsWithoutBinding(limit: batchSize + left.count).filter { !left.contains($0.id) }
            if rows.isEmpty { break }
            for (merchantID, group) in Dictionary(grouping: rows, by: \.merchantID) {
                let alreadyBound: Bool
                if let known = merchantsBound[merchantID] {
                    alreadyBound = known
                } else {
                    alreadyBound = try await Self.rowsAreBound(merchantID: merchantID, in: store)
                    merchantsBound[merchantID] = alreadyBound
                }
                guard !alreadyBound else {
                    left.formUnion(group.map(\.id))
                    refused += group.map(\.id)
                    continue
                }
                do {
                    var bindings: [(id: String, binding: [UInt8])] = []
                    for transaction in group {
                        if let binding = try await self.bound(transaction).binding { bindings.append((transaction.id, binding)) }
                    }
                    try await store.bindTransactionRows(bindings, audit: nil)
                    bound += bindings.count
                    upgraded[merchantID, default: 0] += bindings.count
                    // Rows of this merchant found in a later batch belong to the same upgrade.
                    merchantsBound[merchantID] = false
                } catch KeyringError.keyUnavailable {
                    left.formUnion(group.map(\.id))
                }
            }
        }
        // The record that the merchant's rows are bound is written once all of them are: a start
        // that stops half-way binds the rest at the next start instead of refusing them.
        for (merchantID, count) in upgraded.sorted(by: { $0.key < $1.key }) {
            try await store.bindTransactionRows(
                [],
                audit: AuditEntry(
                    merchantID: merchantID, actor: "system", action: Self.legacyRowsBoundAction, objectType: "merchant", objectID: merchantID,
                    details: ["transactions": String(count)]))
        }
        return (bound, refused)
    }

    /// Whether the merchant's transaction rows are known to be bound: its keyed audit chain says it
    /// was created by a build that binds them, or that its rows of an earlier build were bound.
    static func rowsAreBound(merchantID: String, in store: any AuditStore) async throws -> Bool {
        let upgraded = try await store.auditEvents(
            merchantID: merchantID, filter: AuditFilter(action: legacyRowsBoundAction), before: nil, limit: 1)
        if !upgraded.isEmpty { return true }
        let created = try await store.auditEvents(merchantID: merchantID, filter: AuditFilter(action: "merchant.created"), before: nil, limit: 1)
        return created.contains { $0.details[MerchantService.transactionsBoundDetail] == "true" }
    }
}
