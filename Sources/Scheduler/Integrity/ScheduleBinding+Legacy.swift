public import Vault

extension ScheduleBinding {
    /// The audit action recording that a merchant's schedule and step rows of an earlier build were bound.
    public static let legacyRowsBoundAction = "schedules.bound"

    /// Binds the schedule and step rows an earlier build wrote without a binding, as they stand,
    /// once per merchant (recorded by a `schedules.bound` audit event in the merchant's keyed chain,
    /// written once all its rows are bound; a merchant created by this build says so in its
    /// `merchant.created` event); run at start-up, before serving or charging, as API key rows are.
    ///
    /// An unbound row of a merchant already bound was not written by an earlier build but inserted
    /// (or stripped of its binding) since, by someone writing to the database: it is left unbound,
    /// so the runner sends its steps to review instead of charging them, and its schedule is
    /// returned in `refused`. Rows of off-boarded merchants (keys destroyed) are left: they can
    /// never be charged.
    public func bindLegacyRows(
        in store: any ScheduleStore & ScheduleBindingStore & AuditStore, batchSize: Int = 200
    ) async throws -> (bound: Int, refused: [String]) {
        var bound = 0
        var left: Set<String> = []
        var refused: [String] = []
        var merchantsBound: [String: Bool] = [:]
        var upgraded: [String: (schedules: Int, steps: Int)] = [:]
        while true {
            let schedules = try await store.schedulesWithUnboundRows(limit: batchSize + left.count).filter { !left.contains($0.id) }
            if schedules.isEmpty { break }
            for (merchantID, group) in Dictionary(grouping: schedules, by: \.merchantID) {
                let alreadyBound: Bool
                if let known = merchantsBound[merchantID] {
                    alreadyBound = known
                } else {
                    alreadyBound = try await Self.rowsAreBound(merchantID: merchantID, in: store)
                    merchantsBound[merchantID] = alreadyBound
                }
                guard !alreadyBound else {
                    left.formUnion(group.map(\.id))
                    refused += group.map(\.id)
                    continue
                }
                do {
                    var scheduleBindings: [(id: String, binding: [UInt8])] = []
                    var stepBindings: [(id: String, binding: [UInt8])] = []
                    for schedule in group {
                        if schedule.binding == nil, let binding = try await self.bound(schedule).binding { scheduleBindings.append((schedule.id, binding)) }
                        for step in try await store.steps(scheduleID: schedule.id) where step.binding == nil {
                            if let binding = try await self.bound(step, merchantID: merchantID).binding { stepBindings.append((step.id, binding)) }
                        }
                    }
                    try await store.bindScheduleRows(schedules: scheduleBindings, steps: stepBindings, audit: nil)
                    bound += group.count
                    let done = upgraded[merchantID] ?? (0, 0)
                    upgraded[merchantID] = (done.schedules + scheduleBindings.count, done.steps + stepBindings.count)
                    // Rows of this merchant found in a later batch belong to the same upgrade.
                    merchantsBound[merchantID] = false
                } catch KeyringError.keyUnavailable {
                    left.formUnion(group.map(\.id))
                }
            }
        }
        // The record that the merchant's rows are bound is written once all of them are: a start
        // that stops half-way binds the rest at the next start instead of refusing them.
        for (merchantID, counts) in upgraded.sorted(by: { $0.key < $1.key }) {
            try await store.bindScheduleRows(
                schedules: [], steps: [],
                audit: AuditEntry(
                    merchantID: merchantID, actor: "system", action: Self.legacyRowsBoundAction, objectType: "merchant", objectID: merchantID,
                    details: ["schedules": String(counts.schedules), "steps": String(counts.steps)]))
        }
        return (bound, refused)
    }

    /// Whether the merchant's schedule rows are known to be bound: its keyed audit chain says it
    /// was created by a build that binds them, or that its rows of an earlier build were bound.
    static func rowsAreBound(merchantID: String, in store: any AuditStore) async throws -> Bool {
        let upgraded = try await store.auditEvents(
            merchantID: merchantID, filter: AuditFilter(action: legacyRowsBoundAction), before: nil, limit: 1)
        if !upgraded.isEmpty { return true }
        let created = try await store.auditEvents(merchantID: merchantID, filter: AuditFilter(action: "merchant.created"), before: nil, limit: 1)
        return created.contains { $0.details[MerchantService.schedulesBoundDetail] == "true" }
    }
}
