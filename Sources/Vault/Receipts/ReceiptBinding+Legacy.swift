extension ReceiptBinding {
    /// The audit action recording that a merchant's receipts of an earlier build were bound.
    public static let legacyRowsBoundAction = "email_receipts.bound"

    /// Binds the receipts an earlier build queued without a binding, as they stand, once per
    /// merchant (``LegacyRowBinder``: an `email_receipts.bound` audit event once all its receipts are
    /// bound; a merchant created by this build says so in its `merchant.created` event); run at
    /// start-up, before serving, as transaction rows are. So receipts still pending at the upgrade
    /// are sent, and settled ones pass `vault audit verify`.
    ///
    /// An unbound receipt of a merchant already bound was inserted (or stripped of its binding)
    /// since, by someone writing to the database: it is left unbound, so it is never sent, and
    /// returned in `refused`. A receipt whose recipient no longer opens is bound over an empty
    /// address: it cannot be sent, and `audit verify` reports it. Receipts of off-boarded merchants
    /// are left.
    /// - Parameter keyring: opens the recipients, whose addresses the binding covers.
    public func bindLegacyRows(in store: any ReceiptStore & AuditStore, keyring: Keyring, batchSize: Int = 500) async throws
        -> (bound: Int, refused: [String])
    {
        let recipients = WebhookFieldSeal(keyring: keyring)
        let binder = LegacyRowBinder<EmailReceipt>(
            markerAction: Self.legacyRowsBoundAction, boundAtCreation: MerchantService.receiptsBoundDetail,
            identity: { ($0.id, $0.merchantID) },
            unboundRows: { try await store.receiptsWithoutBinding(limit: $0) },
            bind: { receipts, _ in
                var bindings: [(id: String, binding: [UInt8])] = []
                for receipt in receipts {
                    let address = (try? await recipients.openValue(receipt.recipient, merchantID: receipt.merchantID)) ?? ""
                    bindings.append((receipt.id, try await self.binding(of: receipt, address: address)))
                }
                try await store.bindReceipts(bindings)
                return ["receipts": bindings.count]
            })
        return try await binder.run(audit: store, batchSize: batchSize)
    }
}
