/// One numbered change to the PostgreSQL schema, applied once, in order, inside the migrating
/// transaction (PostgreSQL's DDL is transactional: a failed migration leaves nothing behind).
///
/// Never edited once released; changes come as new migrations with higher ids.
public struct PostgresMigration: Sendable {
    /// Strictly increasing; gaps allowed.
    public let id: Int
    /// What it does, recorded beside the id.
    public let name: String
    /// The statements, run one by one (the extended protocol takes one statement per query).
    public let statements: [String]

    /// A migration of `statements`.
    public init(id: Int, name: String, statements: [String]) {
        self.id = id
        self.name = name
        self.statements = statements
    }
}

/// Every PostgreSQL migration this build knows, oldest first.
///
/// Ids: 1 the Vault module's tables (`PostgresSchema+Vault.swift`), 2 Payments and Scheduler
/// (`PostgresSchema+Billing.swift`), 3 and later as assigned, in id order after them. Add a
/// migration by appending it here.
public enum PostgresSchema {
    /// The migrations, in id order.
    public static var migrations: [PostgresMigration] {
        [vault] + billingMigrations + [
            limits, reconciliation, sandboxLedger, merchantCurrency, reversals, storedPlans, idempotencyClaims, boundAPIKeys, boundSchedules,
            captureSessions, boundTransactions, apiKeyAccounting, receipts, webhookKeyOverlap, consoleOperators, auditChainBindings,
            receiptAddresses,
            webhookWindowBindings, schedulesByCard, claimOrder, scheduleStatusIndexes, keyGenerationTriggers,
        ]
    }

    /// The migrations after the Vault module's (2: Payments and Scheduler), in id order; the
    /// billing stores' file defines `billing` and lists it here.
    static var billingMigrations: [PostgresMigration] { [billing] }
}
