public import Foundation
public import Payments
public import Vault

/// Opens a schedule's sealed receipt contacts: the one place they are read in clear, for the
/// schedule API and for receipts.
public struct ScheduleContactOpener: Sendable {
    private let keyring: Keyring

    /// An opener over the merchants' data keys.
    public init(keyring: Keyring) {
        self.keyring = keyring
    }

    /// `schedule` with `receiptEmail` and `receiptPhone` opened from `sealedContacts` (rows written
    /// before sealing keep their clear values until `sealLegacyContacts` runs).
    public func opened(_ schedule: Schedule) async throws -> Schedule {
        guard let sealed = schedule.sealedContacts else { return schedule }
        var schedule = schedule
        let contacts = try await keyring.openRecord(sealed, merchantID: schedule.merchantID, kind: ScheduleService.contactsKind, recordID: schedule.id)
            .decodeJSON(SealedContacts.self)
        schedule.receiptEmail = contacts.receiptEmail
        schedule.receiptPhone = contacts.receiptPhone
        return schedule
    }

    /// The e-mail receipt of `transaction` (an attempt of one of `schedule`'s steps) to the
    /// schedule's receipt address, prepared for the outbox; nil when the schedule has no address or
    /// the outcome gets none (``ReceiptEvent/init(receiptOf:)``). One place for every way a step's
    /// outcome is recorded: the charge run and an operator's resolution.
    /// - Throws: `KeyringError` or a crypto error when the contacts cannot be opened or the receipt sealed.
    public func emailReceipt(of transaction: Transaction, schedule: Schedule, merchant: Merchant, now: Date = Date()) async throws
        -> PendingReceipt?
    {
        guard ReceiptEvent(receiptOf: transaction) != nil, schedule.sealedContacts != nil || schedule.receiptEmail != nil,
            let address = try await opened(schedule).receiptEmail
        else { return nil }
        return try await EmailReceipts(keyring: keyring).receipt(
            of: transaction, to: address, merchantName: merchant.name, timeZone: merchant.zone, now: now)
    }
}
