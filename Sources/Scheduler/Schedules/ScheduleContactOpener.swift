public import Vault
import Foundation

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
}
