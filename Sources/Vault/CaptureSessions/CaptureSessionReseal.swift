/// Re-seals the customer details of a merchant's capture sessions under its newest data key
/// (`vault keys rotate --data`), so no session needs a superseded data key: a session still open
/// when the superseded versions are destroyed registers its card with the customer it was created
/// with, and the sessions not yet purged no longer keep the old version alive.
public struct CaptureSessionReseal: Sendable {
    private let store: any CaptureSessionStore
    private let keyring: Keyring

    /// Re-seals `store`'s sessions with the merchants' data keys from `keyring`.
    public init(store: any CaptureSessionStore, keyring: Keyring) {
        self.store = store
        self.keyring = keyring
    }

    /// Re-seals every session of `merchantID` (whatever its status) sealed under an older data
    /// key; safe while serving (each row's details are replaced only if unchanged since read).
    /// - Returns: how many sessions were re-sealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        let kind = CaptureSessionService.detailsKind
        var total = 0
        while true {
            let batch = try await store.captureSessionsToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var changed = 0
            for row in batch {
                let id = row.session.id
                let plain = try await keyring.openRecord(row.sealedDetails, merchantID: merchantID, kind: kind, recordID: id)
                let sealed = try await keyring.sealRecord(plain, merchantID: merchantID, kind: kind, recordID: id)
                let version = Keyring.keyVersion(ofSealedRecord: sealed) ?? newest
                if try await store.resealCaptureSessionDetails(id: id, old: row.sealedDetails, new: sealed, keyVersion: version) { changed += 1 }
            }
            total += changed
            if changed == 0 { return total }
        }
    }
}
