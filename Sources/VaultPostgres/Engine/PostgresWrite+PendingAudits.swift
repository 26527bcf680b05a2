import PostgresNIO
public import Vault

extension PostgresWrite {
    /// Appends a prepared audit event inside this transaction, extending its chain (its merchant's,
    /// or `platform`) when the transaction commits.
    ///
    /// The audit key is read now (a store without a keyring fails here, inside the caller's
    /// savepoint); the chain's head is locked, and the event linked and inserted, just before
    /// `COMMIT`, after every other lock of the transaction. Taken in the middle, the head's lock
    /// (held to the end) made two writers deadlock: a runner holding its merchant's chain after a
    /// first outcome and waiting for a schedule's row that another runner had locked for its next
    /// outcome, which then waited for the chain.
    /// - Throws: `PostgresStoreError.misuse` when no keyring is open over the store; server errors.
    public func appendAudit(_ event: PendingAuditEvent) async throws {
        _ = try await auditChainKey(creating: true)
        pendingAudits.append(event)
    }

    /// Appends prepared audit events in the order given, as `appendAudit(_:)` one by one.
    public func appendAudits(_ events: [PendingAuditEvent]) async throws {
        for event in events { try await appendAudit(event) }
    }

    /// Links and inserts the events of `appendAudit(_:)`, in the order appended, in one statement
    /// (`linkAudits(_:)`), the
    /// heads of their chains locked first in name order (two writers of several chains lock them alike).
    func insertPendingAudits() async throws {
        guard !pendingAudits.isEmpty else { return }
        let events = pendingAudits
        pendingAudits = []
        var merchants: [String: String?] = [:]
        for event in events { merchants.updateValue(event.merchantID, forKey: PostgresAuditChains.chain(of: event.merchantID)) }
        for base in merchants.keys.sorted() {
            _ = try await lockedChainHead(base, merchantID: merchants[base] ?? nil)
        }
        try await linkAudits(events)
    }
}
