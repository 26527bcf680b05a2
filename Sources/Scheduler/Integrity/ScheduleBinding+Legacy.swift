public import Vault

extension ScheduleBinding {
    /// The audit action recording that a merchant's schedule and step rows of an earlier build were bound.
    public static let legacyRowsBoundAction = "schedules.bound"

    /// Binds the schedule and step rows an earlier build wrote without a binding, as they stand,
    /// once per merchant (``LegacyRowBinder``: a `schedules.bound` audit event once all its rows are
    /// bound; a merchant created by this build says so in its `merchant.created` event); run at
    /// start-up, before serving or charging, as API key rows are.
    ///
    /// An unbound row of a merchant already bound was inserted (or stripped of its binding) since,
    /// by someone writing to the database: it is left unbound, so the runner sends its steps to
    /// review instead of charging them, and its schedule is returned in `refused`. Rows of
    /// off-boarded merchants are left: they can never be charged.
    public func bindLegacyRows(
        in store: any ScheduleStore & ScheduleBindingStore & AuditStore, batchSize: Int = 200
    ) async throws -> (bound: Int, refused: [String]) {
        let binder = LegacyRowBinder<Schedule>(
            markerAction: Self.legacyRowsBoundAction, boundAtCreation: MerchantService.schedulesBoundDetail,
            identity: { ($0.id, $0.merchantID) },
            unboundRows: { try await store.schedulesWithUnboundRows(limit: $0) },
            bind: { schedules, merchantID in
                var scheduleBindings: [(id: String, binding: [UInt8])] = []
                var stepBindings: [(id: String, binding: [UInt8])] = []
                for schedule in schedules {
                    if schedule.binding == nil, let binding = try await self.bound(schedule).binding { scheduleBindings.append((schedule.id, binding)) }
                    for step in try await store.steps(scheduleID: schedule.id) where step.binding == nil {
                        if let binding = try await self.bound(step, merchantID: merchantID).binding { stepBindings.append((step.id, binding)) }
                    }
                }
                try await store.bindScheduleRows(schedules: scheduleBindings, steps: stepBindings, audit: nil)
                return ["schedules": scheduleBindings.count, "steps": stepBindings.count]
            })
        return try await binder.run(audit: store, batchSize: batchSize)
    }
}
