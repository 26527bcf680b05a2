public import Vault

/// Re-seals the recipients of a merchant's queued e-mail receipts under its newest data key
/// (`vault keys rotate --data`), so no receipt needs a superseded data key: a receipt still to be
/// sent opens after the superseded versions are destroyed, and one already settled keeps passing
/// its binding check (which opens the recipient) until it is purged.
public struct ReceiptRecipientReseal: Sendable {
    private let store: any ReceiptStore
    private let seal: WebhookFieldSeal

    /// Re-seals `store`'s receipts with the merchants' data keys from `keyring`.
    public init(store: any ReceiptStore, keyring: Keyring) {
        self.store = store
        seal = WebhookFieldSeal(keyring: keyring)
    }

    /// Re-seals every receipt of `merchantID` whose recipient is sealed under an older data key
    /// (whatever its status); safe while serving (each row is replaced only if unchanged since read).
    /// - Returns: how many receipts were re-sealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        try await ResealPass.run(
            batchSize: batchSize,
            page: { try await store.receipts(merchantID: merchantID, status: nil, beforeSequence: $0, limit: $1) },
            sequence: \.sequence,
            reseal: { receipt in
                guard let resealed = try await seal.resealed(receipt.recipient, merchantID: merchantID) else { return false }
                return try await store.resealReceiptRecipient(id: receipt.id, old: receipt.recipient, new: resealed)
            })
    }
}
