import Foundation
import Payments
import Scheduler
import Vault

/// What re-encrypting one merchant's records under its newest data key did.
public struct DataKeyReseal: Sendable, Equatable {
    /// Secure cards re-encrypted.
    public var cards = 0
    /// Stored responses of Idempotency-Keys re-encrypted.
    public var idempotentResponses = 0
    /// Schedules whose receipt contact was re-encrypted.
    public var scheduleContacts = 0
    /// Transactions whose receipt address was re-encrypted.
    public var receiptAddresses = 0
    /// Queued or sent e-mail receipts whose recipient was re-encrypted.
    public var receipts = 0
    /// Webhook events whose holder data was re-encrypted.
    public var webhookEvents = 0
    /// Capture sessions whose customer details were re-encrypted.
    public var captureSessions = 0
    /// The superseded data-key versions destroyed once no stored record used them.
    public var destroyedVersions: [Int] = []
    /// Whether the engine then dropped its copies of the key rows as they were before the erasure
    /// (SQLite: the WAL was truncated, so no page image of a destroyed wrapped key is left in it).
    /// False when a reader held it back; `vault keys rotate --data` says so.
    public var destroyedKeyCopiesDiscarded = true
}

extension VaultRuntime {
    /// Re-encrypts every record of the merchant sealed under an older data-key version, destroys
    /// the versions no record uses any more, and then has the engine drop its copies of the key
    /// rows as they were: a destroyed key must not survive in the write-ahead log, where a copy of
    /// the database's files would find it beside the old records it opens.
    ///
    /// Run after every running process seals with the new version (``Keyring/keyChangePropagationBound``),
    /// so nothing sealed under the old one is written behind the pass.
    public func resealUnderNewestDataKey(merchantID: String, actor: String) async throws -> DataKeyReseal {
        var reseal = DataKeyReseal()
        reseal.cards = try await cards.resealAll(merchantID: merchantID)
        reseal.idempotentResponses = try await idempotency.resealAll(merchantID: merchantID)
        reseal.scheduleContacts = try await schedules.resealContacts(merchantID: merchantID)
        _ = try await StoredCredentials(store: store, keyring: keyring).resealAll(merchantID: merchantID)
        reseal.receiptAddresses = try await TransactionReceiptAddress(keyring: keyring).resealAll(in: store, merchantID: merchantID)
        reseal.receipts = try await ReceiptRecipientReseal(store: store, keyring: keyring).resealAll(merchantID: merchantID)
        reseal.webhookEvents = try await WebhookEventReseal(store: store, keyring: keyring).resealAll(merchantID: merchantID)
        reseal.captureSessions = try await CaptureSessionReseal(store: store, keyring: keyring).resealAll(merchantID: merchantID)
        reseal.destroyedVersions = try await merchants.destroySupersededDataKeys(merchantID: merchantID, actor: actor)
        guard !reseal.destroyedVersions.isEmpty else { return reseal }
        reseal.destroyedKeyCopiesDiscarded = await store.discardDestroyedKeyCopies()
        return reseal
    }

    /// Off-boards the merchant: cancels its open schedules (once its keys are gone its cards cannot
    /// be read, so a schedule left open would be charged into `failed` every night), destroys its
    /// keys and revokes its API keys, then has the engine drop its copies of the key rows as they
    /// were, as after a data key's destruction.
    /// - Returns: the schedules cancelled, and whether the copies were dropped (false when a reader
    ///   held them back: ``destroyedKeyCopiesHeldBack`` says what to run).
    public func offboard(merchantNamed name: String, actor: String) async throws -> (cancelled: Int, destroyedKeyCopiesDiscarded: Bool) {
        guard let merchant = try await store.merchant(named: name) else { throw MerchantError.notFound(name) }
        let cancelled = try await schedules.cancelAll(merchant: merchant, actor: actor)
        try await merchants.offboard(name: name, actor: actor)
        return (cancelled, await store.discardDestroyedKeyCopies())
    }

    /// What the commands that destroy keys print when the engine could not drop its copies of the
    /// key rows at once.
    public static let destroyedKeyCopiesHeldBack =
        "the copies of the destroyed keys' rows could not be dropped now (a reader held them): run"
        + " `sqlite3 DB 'PRAGMA wal_checkpoint(TRUNCATE)'` (PostgreSQL: `VACUUM FULL merchant_keys`) when idle"
}
