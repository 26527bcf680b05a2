import Foundation
public import Logging
public import Payments
public import Scheduler
public import Vault
public import VaultAPI
import VaultPostgres

/// The opened database, checked key ring and domain services that every command and the server share.
public struct VaultRuntime: Sendable {
    /// The configuration it was opened with.
    public let configuration: VaultConfiguration
    /// Storage: every store protocol and the engine (SQLite or, later, PostgreSQL; see `StorageOpener`).
    public let store: any VaultStorage
    /// The key hierarchy, already verified against the database.
    public let keyring: Keyring
    /// Merchants and API keys.
    public let merchants: MerchantService
    /// Where the KEK came from.
    public let keySource: MasterKeySource
    /// Secure cards.
    public let cards: SecureCardService
    /// Gateway adapters by merchant configuration.
    public let gateways: GatewayRegistry
    /// Schedules.
    public let schedules: ScheduleService
    /// Sales, authorizations, verifications and follow-ups.
    public let transactions: TransactionService
    /// Idempotency-Keys: keyed request MACs and sealed responses.
    public let idempotency: IdempotencyService
    /// Charge runs started over HTTP, run by ``ChargeRunService``.
    public let chargeRuns = ChargeRunQueue()
    /// Where the per-key rate limit and the failed-authentication limiter count. Nil:
    /// in this process's memory, one set per application (SQLite: one machine). Servers sharing a
    /// PostgreSQL database must share them: `PostgresRequestLimits` over that database.
    public var requestLimits: (any RequestLimitStore)?

    /// Opens the database (migrating it), loads the master key and checks it against the database.
    ///
    /// The key is loaded and checked for permissions before the database is touched, so a
    /// refused key changes nothing; so are the database's directory and files (a
    /// group- or world-accessible one is refused with the `chmod` that fixes it).
    /// - Throws: key-file, `DatabaseFiles.InsecurePermissions`, configuration, SQLite and `KeyringError` errors.
    /// - Parameter gateways: the adapters to use (tests pass a sandbox with injected behaviour); by
    ///   default a registry whose sandbox keeps its ledger in the opened database, so every process
    ///   on it (server, runner) sees the same sandbox transactions, across restarts, and whose
    ///   adapters report every call to the gateway metrics (``GatewayMetrics``).
    /// - Parameter gatewayLogger: where the default registry's adapters log (by default their own
    ///   `vault.gateways` logger; tests capture it with the runtime's logs).
    /// - Parameter upgradingUnkeyedAuditChain: key an audit chain written by a build before the keyed chain (`vault audit upgrade`).
    /// - Parameter database: whether a missing database is created (`vault migrate`, `vault serve`)
    ///   or refused with ``DatabaseMissing`` (every other command: a runner started in the wrong
    ///   directory must not bill nobody on a new empty database and succeed).
    public static func open(
        configuration: VaultConfiguration, logger: Logger, gateways: GatewayRegistry? = nil, gatewayLogger: Logger? = nil,
        upgradingUnkeyedAuditChain: Bool = false, database creation: DatabaseCreation = .requireExisting
    ) async throws -> VaultRuntime {
        let source = MasterKeySource(configuration: configuration.keys)
        let ring = try source.load(configuration: configuration.keys)
        let store = try await StorageOpener.open(configuration.database, creation: creation, logger: logger)
        let keyring = Keyring(masterKeys: ring, store: store)
        let gateways = gateways ?? GatewayRegistry(
            sandbox: SandboxGateway(ledger: store as? any SandboxLedgerStore), logger: gatewayLogger ?? Logger(label: "vault.gateways"),
            timeout: .seconds(configuration.runner.gatewayTimeoutSeconds), observer: GatewayMetrics())
        if case .passphrase = source, let weakness = PassphraseStrength.weakness(of: configuration.keys.passphraseFromEnvironment ?? "") {
            logger.warning("weak master passphrase: with a copy of the database and the salt it can be guessed offline", metadata: ["reason": "\(weakness)"])
        }
        if case .file = source {
            // `keys rotate` run by another process adds versions to the file: read it again when a key
            // names a version not held, and on SIGHUP (the environment cannot change under a running process).
            let keys = configuration.keys
            keyring.setMasterKeyReloader { try source.load(configuration: keys) }
        }
        do {
            try await keyring.verifyMasterKey(upgradingUnkeyedAuditChain: upgradingUnkeyedAuditChain)
        } catch {
            store.close()
            throw error
        }
        do {
            let migration = try await store.appliedMigrations().last ?? 0
            logger.info("vault started", metadata: RuntimeDescription(configuration: configuration, keySource: source, migration: migration).metadata)
        } catch {
            store.close()
            throw error
        }
        let merchants = MerchantService(
            store: store, keyring: keyring, defaultTimeZone: configuration.defaults.timeZone, defaultGateway: configuration.defaults.gateway,
            gateways: GatewayCatalogue.merchantRules,
            allowPrivateCallbackTargets: configuration.webhooks.allowPrivateTargets)
        let merchantGateways = MerchantGateways(registry: gateways, merchants: merchants)
        let storedCredentials = StoredCredentials(store: store, keyring: keyring)
        let verifier = GatewayCardVerifier(gateways: merchantGateways, store: store, storedCredentials: storedCredentials, logger: logger)
        let cards = SecureCardService(store: store, keyring: keyring, verifier: verifier)
        let defaultTime = LocalTime(hour: configuration.defaults.hour, minute: configuration.defaults.minute) ?? .midnight
        let receiptSetup = EmailReceiptSetup(sendmailCommand: configuration.receipts.sendmailCommand, from: configuration.receipts.from)
        let schedules = ScheduleService(
            store: store,
            settings: ScheduleSettings(
                defaultTime: defaultTime, maxStepCount: configuration.schedules.maxStepCount, horizonDays: configuration.schedules.horizonDays,
                confirmationTimeout: TimeInterval(configuration.schedules.confirmationTimeoutHours) * 3600),
            keyring: keyring, firstUse: GatewayFirstUseCheck(cards: cards, storedCredentials: storedCredentials, verifier: verifier),
            emailReceipts: receiptSetup)
        let transactions = TransactionService(
            store: store, cards: cards, gateways: merchantGateways, reversalWindow: TimeInterval(configuration.reversalWindowHours) * 3600,
            storedCredentials: storedCredentials,
            duplicates: DuplicateTransactionCheck(keyring: keyring, window: TimeInterval(configuration.duplicateWindowSeconds)),
            receipts: EmailReceipts(keyring: keyring, setup: receiptSetup),
            inheritedReceiptAddress: ScheduleReceiptAddress(store: store, keyring: keyring))
        // A claim outlives the longest request a live server runs: its timeout plus one gateway call.
        let idempotency = IdempotencyService(
            store: store, keyring: keyring,
            claimLease: max(IdempotencyService.defaultClaimLease, TimeInterval(configuration.server.requestTimeoutSeconds + 30)))
        var runtime = VaultRuntime(
            configuration: configuration, store: store, keyring: keyring, merchants: merchants, keySource: source, cards: cards, gateways: gateways,
            schedules: schedules, transactions: transactions, idempotency: idempotency)
        if let postgres = store as? PostgresStore {
            // Several servers on one database: a key's limit and an address's failed authentications are counted once for all.
            let limits = configuration
            runtime.requestLimits = PostgresRequestLimits(
                store: postgres,
                rules: .init(
                    requestsPerSecond: limits.rateLimit.requestsPerSecond, burst: limits.rateLimit.burst,
                    failedAuthLimit: limits.server.failedAuthLimit, failedAuthWindowSeconds: limits.server.failedAuthWindowSeconds),
                keyring: keyring)
        }
        do {
            try await runtime.protectLegacyRecords(logger: logger)
        } catch {
            store.close()
            throw error
        }
        return runtime
    }

    /// Brings records written before the current at-rest protections up to them, once, before
    /// anything is served (each step finds nothing to do through a partial index once done): idempotency rows
    /// with unkeyed fingerprints and clear responses, cards whose sealed data does not bind their
    /// clear metadata, schedules with receipt contacts in the clear, API key, schedule, step and
    /// transaction rows and webhook signing windows without a binding, audit chains without a
    /// binding row.
    func protectLegacyRecords(logger: Logger) async throws {
        let idempotencyRows = try await idempotency.upgradeLegacyRows()
        let boundCards = try await cards.bindLegacyMetadata()
        let sealedContacts = try await schedules.sealLegacyContacts()
        _ = try await cards.indexHolderNames()
        let keys = try await merchants.bindLegacyAPIKeys()
        if keys.bound > 0 { logger.notice("bound API key rows written by an earlier build", metadata: ["keys": "\(keys.bound)"]) }
        if !keys.refused.isEmpty {
            logger.warning(
                "API key rows inserted behind the vault's back are refused (shown as tampered by `vault merchant key --list`)",
                metadata: ["keys": "\(keys.refused.joined(separator: ","))"])
        }
        let schedules = try await ScheduleBinding(keyring: keyring).bindLegacyRows(in: store)
        if schedules.bound > 0 { logger.notice("bound schedule rows written by an earlier build", metadata: ["schedules": "\(schedules.bound)"]) }
        if !schedules.refused.isEmpty {
            logger.warning(
                "schedule rows inserted or altered behind the vault's back are left unbound: their steps go to review instead of being charged",
                metadata: ["schedules": "\(schedules.refused.joined(separator: ","))"])
        }
        let transactions = try await TransactionBinding(keyring: keyring).bindLegacyRows(in: store)
        if transactions.bound > 0 { logger.notice("bound transaction rows written by an earlier build", metadata: ["transactions": "\(transactions.bound)"]) }
        if !transactions.refused.isEmpty {
            logger.warning(
                "transaction rows inserted or altered behind the vault's back are left unbound: no capture, void or refund of them is sent",
                metadata: ["transactions": "\(transactions.refused.joined(separator: ","))"])
        }
        let receipts = try await ReceiptBinding(keyring: keyring).bindLegacyRows(in: store, keyring: keyring)
        if receipts.bound > 0 { logger.notice("bound e-mail receipts queued by an earlier build", metadata: ["receipts": "\(receipts.bound)"]) }
        if !receipts.refused.isEmpty {
            logger.warning(
                "e-mail receipts inserted or altered behind the vault's back are left unbound: they are never sent",
                metadata: ["receipts": "\(receipts.refused.joined(separator: ","))"])
        }
        let windows = try await WebhookSigningWindowBinding(keyring: keyring).bindLegacyWindows(in: store)
        if windows.bound > 0 { logger.notice("bound webhook signing windows written by an earlier build", metadata: ["windows": "\(windows.bound)"]) }
        if !windows.refused.isEmpty {
            logger.warning(
                "webhook signing windows set behind the vault's back are left unbound: those retired secrets sign nothing",
                metadata: ["windows": "\(windows.refused.joined(separator: ","))"])
        }
        let chains = try await store.bindLegacyAuditChains()
        if chains > 0 { logger.notice("bound audit chains written by an earlier build", metadata: ["chains": "\(chains)"]) }
        if idempotencyRows + boundCards + sealedContacts > 0 {
            // The clear values and unkeyed hashes just replaced are still in WAL frames until the
            // WAL is reused: cut it, so a copy of the WAL taken from now on holds none of them.
            if await !store.discardSupersededRowVersions() {
                logger.warning("could not truncate the WAL after sealing old records; run `sqlite3 DB 'PRAGMA wal_checkpoint(TRUNCATE)'` when idle")
            }
            logger.notice(
                "protected records written before keyed idempotency, bound card metadata and sealed contacts",
                metadata: ["idempotencyRows": "\(idempotencyRows)", "cards": "\(boundCards)", "schedules": "\(sealedContacts)"])
        }
    }

    /// Closes the database.
    public func close() {
        store.close()
    }
}
