public import Logging
public import Scheduler
public import Vault

/// Binds the schedule and step rows a benchmark seeder copied in SQL, so the charge runner charges
/// them instead of sending them to review: the engine of the `benchmark-seed-binder` tool, for the
/// runner benchmarks and the crash test only.
///
/// Schedule and step rows carry a MAC over their content and id (``ScheduleBinding``); a row
/// copied in SQL has none, and the runner refuses it. Seeding 1,000,000 due steps through the API
/// would take hours, so the seeder copies a few API-made schedules with a NULL binding and this
/// binds every unbound schedule and step row of one merchant with the vault's own keys, through the
/// domain (``ScheduleBinding/bound(_:)``) and the store (``ScheduleBindingStore/bindScheduleRows(schedules:steps:audit:)``),
/// a batch per write, with no audit event claiming anything about them.
///
/// It is a benchmark tool, not an operator command: it needs the master key (the same key source
/// as `vault`), and whoever holds the master key and write access to the database can already
/// bind any row, so it gives nobody a power they do not already have. Unlike the start-up upgrade
/// of rows of an earlier build (``ScheduleBinding/bindLegacyRows(in:batchSize:)``), it binds rows
/// of a merchant already bound: that is its whole point, and why it must never run on a vault that
/// bills real cards.
public enum BenchmarkSeedBinder {
    /// How many rows were bound.
    public struct Report: Sendable, Equatable {
        public var schedules = 0
        public var steps = 0

        public init(schedules: Int = 0, steps: Int = 0) {
            self.schedules = schedules
            self.steps = steps
        }
    }

    /// Schedules (with their steps) bound per write: a few thousand rows per transaction.
    public static let defaultBatchSize = 2_000
    /// Batches read per query for unbound rows: the query looks at every unbound row each time, so
    /// reading many batches at once keeps a million seeded rows from costing hundreds of passes.
    static let batchesPerRead = 10

    /// Opens the database and master key of `configuration` as `vault` does (same key source, same
    /// master key check, an existing database only), without the start-up upgrades, and binds the
    /// unbound rows of `merchant` (a `mer_` id or a name).
    /// - Throws: key, configuration and storage errors; `MerchantError.notFound` for an unknown merchant.
    public static func run(configuration: VaultConfiguration, merchant: String, logger: Logger, batchSize: Int = defaultBatchSize) async throws
        -> Report
    {
        let source = MasterKeySource(configuration: configuration.keys)
        let ring = try source.load(configuration: configuration.keys)
        let store = try await StorageOpener.open(configuration.database, creation: .requireExisting, logger: logger)
        defer { store.close() }
        let keyring = Keyring(masterKeys: ring, store: store)
        try await keyring.verifyMasterKey()
        let found: Merchant? =
            if merchant.hasPrefix("mer_") { try await store.merchant(id: merchant) } else { try await store.merchant(named: merchant) }
        guard let found else { throw MerchantError.notFound(merchant) }
        return try await bind(merchantID: found.id, in: store, keyring: keyring, batchSize: batchSize)
    }

    /// Binds every schedule and step row of `merchantID` that has no binding, as it stands,
    /// `batchSize` schedules (with their steps) per write. Rows of other merchants are left as they are.
    public static func bind(
        merchantID: String, in store: any ScheduleStore & ScheduleBindingStore, keyring: Keyring, batchSize: Int = defaultBatchSize
    ) async throws -> Report {
        let binding = ScheduleBinding(keyring: keyring)
        var report = Report()
        // Schedules the query keeps answering that this run does not bind (another merchant's).
        var left: Set<String> = []
        while true {
            let page = try await store.schedulesWithUnboundRows(limit: batchSize * Self.batchesPerRead + left.count).filter { !left.contains($0.id) }
            if page.isEmpty { return report }
            for start in stride(from: 0, to: page.count, by: batchSize) {
                let bound = try await bind(
                    page[start..<min(start + batchSize, page.count)], merchantID: merchantID, in: store, binding: binding, left: &left)
                report.schedules += bound.schedules
                report.steps += bound.steps
            }
        }
    }

    /// Binds the unbound rows of `batch` (schedules of `merchantID` and their steps) in one write;
    /// adds to `left` the schedules it leaves as they are.
    static func bind(
        _ batch: ArraySlice<Schedule>, merchantID: String, in store: any ScheduleStore & ScheduleBindingStore, binding: ScheduleBinding,
        left: inout Set<String>
    ) async throws -> Report {
        var schedules: [(id: String, binding: [UInt8])] = []
        var steps: [(id: String, binding: [UInt8])] = []
        for schedule in batch {
            guard schedule.merchantID == merchantID else {
                left.insert(schedule.id)
                continue
            }
            var boundAny = false
            if schedule.binding == nil, let bound = try await binding.bound(schedule).binding {
                schedules.append((schedule.id, bound))
                boundAny = true
            }
            for step in try await store.steps(scheduleID: schedule.id) where step.binding == nil {
                if let bound = try await binding.bound(step, merchantID: merchantID).binding {
                    steps.append((step.id, bound))
                    boundAny = true
                }
            }
            // A row the domain gives no binding would be answered again forever.
            if !boundAny { left.insert(schedule.id) }
        }
        try await store.bindScheduleRows(schedules: schedules, steps: steps, audit: nil)
        return Report(schedules: schedules.count, steps: steps.count)
    }
}
