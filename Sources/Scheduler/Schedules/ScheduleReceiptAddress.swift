public import Payments
public import Vault

/// The receipt address a transaction one of a schedule's steps charged inherits: the schedule's
/// `receiptEmail`, opened from its sealed contacts when a refund, void or capture of the charge is
/// made. The follow-up keeps it sealed as its own, so its receipt goes the way a one-off
/// transaction's does; a charge whose schedule has no address (or is gone) inherits none.
public struct ScheduleReceiptAddress: InheritedReceiptAddress {
    private let store: any ScheduleStore
    private let contacts: ScheduleContactOpener

    /// Reads schedules from `store` and opens their contacts with the data keys from `keyring`.
    public init(store: any ScheduleStore, keyring: Keyring) {
        self.store = store
        contacts = ScheduleContactOpener(keyring: keyring)
    }

    /// The `receiptEmail` of the schedule that charged `original`; nil for a transaction no
    /// schedule charged or a schedule without an address.
    /// - Throws: a storage error, or `KeyringError` or a crypto error when the contacts do not open.
    public func receiptAddress(of original: Transaction) async throws -> String? {
        guard let scheduleID = original.scheduleID,
            let schedule = try await store.schedule(merchantID: original.merchantID, id: scheduleID)
        else { return nil }
        return try await contacts.opened(schedule).receiptEmail
    }
}
