public import Vault

/// The bindings of schedule and step rows (``RowBinding``): what an insider with write access to
/// the database must not change without the vault noticing before it charges anything.
///
/// - A schedule binds its id, merchant, card, currency, amount and plan (in its stored form).
/// - A step binds its id, schedule, position, date, due instant, amount and currency, under the key
///   of its schedule's merchant.
///
/// Status, attempts, leases and the retry time are not bound: the vault changes them in SQL on
/// every run, and none of them names a card or an amount.
public struct ScheduleBinding: Sendable {
    static let scheduleKind = "schedule"
    static let stepKind = "schedule_step"

    private let rows: RowBinding

    /// Binds with the merchants' keys from `keyring`.
    public init(keyring: Keyring) {
        rows = RowBinding(keyring: keyring)
    }

    /// `schedule` with its binding computed from its fields as they stand.
    public func bound(_ schedule: Schedule) async throws -> Schedule {
        var schedule = schedule
        schedule.binding = try await rows.binding(kind: Self.scheduleKind, merchantID: schedule.merchantID, fields: try Self.fields(of: schedule))
        return schedule
    }

    /// `step` (of a schedule of `merchantID`) with its binding computed from its fields as they stand.
    public func bound(_ step: ScheduleStep, merchantID: String) async throws -> ScheduleStep {
        var step = step
        step.binding = try await rows.binding(kind: Self.stepKind, merchantID: merchantID, fields: Self.fields(of: step))
        return step
    }

    /// Whether `schedule`'s stored binding matches its fields.
    public func isIntact(_ schedule: Schedule) async -> Bool {
        guard let fields = try? Self.fields(of: schedule) else { return false }
        return await rows.isIntact(kind: Self.scheduleKind, merchantID: schedule.merchantID, fields: fields, binding: schedule.binding)
    }

    /// Whether `step`'s stored binding matches its fields, under the key of `merchantID` (its
    /// schedule's merchant).
    public func isIntact(_ step: ScheduleStep, merchantID: String) async -> Bool {
        await rows.isIntact(kind: Self.stepKind, merchantID: merchantID, fields: Self.fields(of: step), binding: step.binding)
    }

    /// Why a schedule and one of its steps may not be charged, in words an operator can act on;
    /// nil when both are intact.
    /// - Parameter scheduleIntact: the schedule's own check, when already made (a schedule with
    ///   several due steps is checked once per batch).
    public func refusal(_ schedule: Schedule, step: ScheduleStep, scheduleIntact: Bool? = nil) async -> String? {
        let scheduleIntact = if let scheduleIntact { scheduleIntact } else { await isIntact(schedule) }
        let stepIntact = step.scheduleID == schedule.id ? await isIntact(step, merchantID: schedule.merchantID) : false
        switch (scheduleIntact, stepIntact) {
        case (true, true): return nil
        case (false, true): return Self.scheduleAltered
        case (true, false): return Self.stepAltered
        case (false, false): return Self.scheduleAltered + "; " + Self.stepAltered
        }
    }

    static let scheduleAltered = "the schedule's stored card, merchant, amount, currency or plan is not as the vault wrote it"
    static let stepAltered = "the step's stored schedule, amount, currency or due date is not as the vault wrote it"

    static func fields(of schedule: Schedule) throws -> [String] {
        [schedule.id, schedule.secureCardReference, schedule.currency.code, String(schedule.amount), try Schedule.storedPlanText(schedule.plan)]
    }

    static func fields(of step: ScheduleStep) -> [String] {
        [step.id, step.scheduleID, String(step.sequence), step.date.iso, Timestamp.string(step.dueAt), String(step.amount), step.currency.code]
    }
}
