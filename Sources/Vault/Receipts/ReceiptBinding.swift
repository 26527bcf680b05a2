/// The bindings of queued e-mail receipts (``RowBinding``): a receipt moves no money, but it tells a
/// payer what happened, so someone who can write to the database but holds no key must not be able
/// to make the vault send a lie (another amount, currency, merchant, transaction or recipient).
///
/// A receipt binds its id, merchant (the key is the merchant's), transaction id, event, recipient
/// (its address in clear, so re-sealing the address under a new data key leaves the binding as it
/// is), the merchant's name and zone the message shows, and the message's text (which holds the
/// amount, currency, card and date). The domain computes it when it prepares the receipt; the
/// deliverer checks it before the message is piped, and `vault audit verify` reports receipts that
/// fail it.
public struct ReceiptBinding: Sendable {
    static let kind = "email_receipt"

    private let rows: RowBinding

    /// Binds with the merchants' keys from `keyring`.
    public init(keyring: Keyring) {
        rows = RowBinding(keyring: keyring)
    }

    /// The binding of `receipt`, whose recipient opens to `address`.
    /// - Throws: `KeyringError.keyUnavailable` when the merchant's keys are destroyed.
    public func binding(of receipt: PendingReceipt, address: String) async throws -> [UInt8] {
        try await rows.binding(
            kind: Self.kind, merchantID: receipt.merchantID,
            fields: Self.fields(
                id: receipt.id, transactionID: receipt.transactionID, event: receipt.event, address: address, merchantName: receipt.merchantName,
                timeZone: receipt.timeZone, body: receipt.body))
    }

    /// The binding of a stored `receipt`, whose recipient opens to `address` (the one-time binding
    /// of an earlier build's rows).
    /// - Throws: `KeyringError.keyUnavailable` when the merchant's keys are destroyed.
    public func binding(of receipt: EmailReceipt, address: String) async throws -> [UInt8] {
        try await rows.binding(
            kind: Self.kind, merchantID: receipt.merchantID,
            fields: Self.fields(
                id: receipt.id, transactionID: receipt.transactionID, event: receipt.event, address: address, merchantName: receipt.merchantName,
                timeZone: receipt.timeZone, body: receipt.body))
    }

    /// Whether `receipt`'s stored binding matches it, its recipient opened to `address`: false for a
    /// row without one, a row altered since it was queued, and a merchant whose keys are destroyed.
    public func isIntact(_ receipt: EmailReceipt, address: String) async -> Bool {
        await rows.isIntact(
            kind: Self.kind, merchantID: receipt.merchantID,
            fields: Self.fields(
                id: receipt.id, transactionID: receipt.transactionID, event: receipt.event, address: address, merchantName: receipt.merchantName,
                timeZone: receipt.timeZone, body: receipt.body),
            binding: receipt.binding)
    }

    static func fields(
        id: String, transactionID: String, event: ReceiptEvent, address: String, merchantName: String, timeZone: String, body: String
    ) -> [String] {
        [id, transactionID, event.rawValue, address, merchantName, timeZone, body]
    }
}
