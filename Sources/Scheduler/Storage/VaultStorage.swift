public import Payments
public import Vault

/// What the runtime asks of a storage engine itself, beyond the domain's store protocols:
/// readiness, closing, the schema's state for `vault migrate`, and compaction after re-sealing.
public protocol StorageEngine: Sendable {
    /// Whether the database answers a trivial query (readiness, `/readyz`).
    func isReachable() async -> Bool
    /// Finishes queued writes and closes every connection; idempotent.
    func close()
    /// The ids of the schema migrations applied, in increasing order (`vault migrate`).
    func appliedMigrations() async throws -> [Int]
    /// Drops the engine's copies of rows as they were before their latest rewrite (SQLite: a
    /// `TRUNCATE` checkpoint, so the WAL keeps no page image of clear data that was just sealed).
    /// - Returns: false when it could not be done now (a reader held it back); retried by the operator.
    func discardSupersededRowVersions() async -> Bool
    /// Drops the engine's copies of key rows as they were before their wrapped key was erased
    /// (data-key destruction, off-boarding), so a copy of the database's files taken afterwards
    /// holds no destroyed key (SQLite: a `TRUNCATE` checkpoint; PostgreSQL: `merchant_keys` rewritten).
    /// - Returns: false when it could not be done now (a reader held it back); retried by the operator.
    func discardDestroyedKeyCopies() async -> Bool
}

/// Everything the vault stores, for the runtime: every domain store protocol and the engine.
///
/// Lives in Scheduler, the top domain module, because it is the lowest module that sees every
/// store protocol (Vault's, Payments' and its own) and both engines (VaultSQLite, VaultPostgres)
/// and VaultAPI already depend on it. Domain services keep taking their narrow protocols.
public protocol VaultStorage:
    KeyStore & WebhookKeyStore & MerchantStore & AuditStore & AuditHeadStore & AuditChainBindingStore & KeyStatusStore & IdempotencyStore
    & WebhookStore & ReceiptStore & CustomFieldStore
    & SecureCardStore & TransactionStore & TransactionReconciliationStore & TransactionReceiptAddressStore & StoredCredentialStore & ScheduleStore & ScheduleBindingStore & TransactionBindingStore
    & ChargeRunStore & ChargeRunHistoryStore & StepReviewStore & ReviewQueueStore & CaptureSessionStore & OperationsGaugeStore
    & OperatorStore & StorageEngine
{}
