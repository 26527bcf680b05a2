public import Foundation
public import Vault

/// Where a transaction's re-sealing reads and writes its kept receipt address
/// (``Transaction/sealedReceiptAddress``), on every storage engine.
public protocol TransactionReceiptAddressStore: Sendable {
    /// Up to `limit` of the merchant's transactions whose receipt address is sealed under a data-key
    /// version below `belowKeyVersion`, with the sealed bytes.
    func receiptAddressesToReseal(merchantID: String, belowKeyVersion: Int, limit: Int) async throws -> [(id: String, sealed: [UInt8])]
    /// Replaces the transaction's sealed receipt address by `new` if it is still `old`; whether it was replaced.
    func resealReceiptAddress(transactionID: String, merchantID: String, old: [UInt8], new: [UInt8]) async throws -> Bool
}

/// The payer's e-mail address for a transaction's receipts, kept with the transaction so that its
/// refunds, voids and captures, and an outcome settled later (by the reconciler or an operator),
/// send their receipts to it without the address being given again.
///
/// Kept sealed under the merchant's data key (``Keyring/sealRecord(_:merchantID:kind:recordID:dataKeyVersion:binding:)``,
/// bound to the transaction's id and merchant): never in the clear, unreadable once the merchant's
/// data keys are destroyed, re-sealed under the newest data key at rotation (``resealAll(in:merchantID:batchSize:)``).
public struct TransactionReceiptAddress: Sendable {
    /// The `kind` bound into each seal.
    public static let kind = "transaction_receipt_address"

    private let keyring: Keyring

    /// Seals and opens with the merchants' data keys from `keyring`.
    public init(keyring: Keyring) {
        self.keyring = keyring
    }

    /// `address` sealed for `transaction` (its id and merchant).
    /// - Throws: `KeyringError` when the merchant's data key is unavailable.
    public func sealed(_ address: String, for transaction: Transaction) async throws -> [UInt8] {
        try await keyring.sealRecord(Array(address.utf8), merchantID: transaction.merchantID, kind: Self.kind, recordID: transaction.id)
    }

    /// The address `transaction` keeps, opened; nil when it keeps none.
    /// - Throws: `KeyringError` or a crypto error when it does not open (a destroyed key, bytes
    ///   altered or copied from another transaction).
    public func opened(of transaction: Transaction) async throws -> String? {
        guard let sealed = transaction.sealedReceiptAddress else { return nil }
        let opened = try await keyring.openRecord(sealed, merchantID: transaction.merchantID, kind: Self.kind, recordID: transaction.id)
        return String(decoding: opened.copyToArray(), as: UTF8.self)
    }

    /// Re-encrypts the merchant's kept receipt addresses under its newest data key (`keys rotate
    /// --data`), so no transaction needs a superseded data key; safe while serving.
    /// - Returns: how many addresses were re-sealed.
    public func resealAll(in store: any TransactionReceiptAddressStore, merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        var total = 0
        while true {
            let batch = try await store.receiptAddressesToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var changed = 0
            for (id, sealed) in batch {
                let plain = try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.kind, recordID: id)
                let resealed = try await keyring.sealRecord(plain, merchantID: merchantID, kind: Self.kind, recordID: id)
                if try await store.resealReceiptAddress(transactionID: id, merchantID: merchantID, old: sealed, new: resealed) { changed += 1 }
            }
            total += changed
            if changed == 0 { return total }
        }
    }
}

/// The e-mail receipts a one-off transaction's outcome queues, decided in one place for every way
/// an outcome is recorded: the request's own answer, the reconciler's later finding, an operator's
/// resolution. The receipt goes to the address the transaction keeps
/// (``Transaction/sealedReceiptAddress``); which outcomes get one is the receipts' decision
/// (``TransactionReceipts/receipt(of:to:merchantName:timeZone:now:)``).
public struct OutcomeReceipts: Sendable {
    private let receipts: (any TransactionReceipts)?
    private let addresses: TransactionReceiptAddress

    /// Receipts prepared by `receipts` (none when nil: the vault sends no e-mail), addresses opened
    /// with the merchants' data keys from `keyring`.
    public init(receipts: (any TransactionReceipts)?, keyring: Keyring) {
        self.receipts = receipts
        addresses = TransactionReceiptAddress(keyring: keyring)
    }

    /// The receipt of `transaction`'s outcome to the address it keeps, queued with the outcome;
    /// none without an address or for an outcome that gets none. A receipt that cannot be prepared
    /// now (the merchant's data key unavailable) is left out rather than holding back the outcome.
    public func receipts(of transaction: Transaction, merchant: Merchant, now: Date) async -> [PendingReceipt] {
        guard let receipts, transaction.sealedReceiptAddress != nil, let address = try? await addresses.opened(of: transaction) else { return [] }
        let prepared = try? await receipts.receipt(of: transaction, to: address, merchantName: merchant.name, timeZone: merchant.zone, now: now)
        return prepared.map { [$0] } ?? []
    }
}
