import Foundation
public import Vault

extension Schedule {
    /// The row of `schedules` as both engines store it, its plan decoded (``StoredPlan/plan(of:)``).
    public init(storedRow row: some StoredRow) throws {
        try self.init(storedRow: row, plan: StoredPlan.plan(of: row))
    }

    /// The row of `schedules` with its `plan` column already decoded (a batch of schedules often
    /// shares one plan text, decoded once), read in one place so the engines cannot drift apart.
    ///
    /// - Throws: `StoredRowError` for a value this build cannot read (a status, currency, date or instant).
    public init(storedRow row: some StoredRow, plan: PlanTerms) throws {
        let stored = try row.table("schedules")
        self.init(
            id: stored.id, merchantID: try row.string("merchant_id"), secureCardReference: try row.string("secure_card_id"),
            status: try stored.value(ScheduleStatus.self, "status"), plan: plan, amount: try row.int64("amount"),
            currency: try stored.currency("currency"), description: try row.optionalString("description"),
            externalID: try row.optionalString("external_id"), receiptEmail: try row.optionalString("receipt_email"),
            receiptPhone: try row.optionalString("receipt_phone"),
            materializedThrough: try stored.optionalCivilDate("materialized_through"),
            createdAt: try stored.instant("created_at"), updatedAt: try stored.instant("updated_at"),
            confirmedAt: try stored.optionalInstant("confirmed_at"), expiresAt: try stored.optionalInstant("expires_at"),
            pausedAt: try stored.optionalInstant("paused_at"), sequence: try row.int64("seq"),
            sealedContacts: try row.optionalBlob("sealed_contacts"), binding: try row.optionalBlob("binding"))
    }

    /// The `schedules.stored_plan` value for `plan`: its stored form (`StoredPlan`), never the API's JSON.
    public static func storedPlanText(_ plan: PlanTerms) throws -> String {
        try StoredPlan(plan).storedText()
    }

    /// The `schedules.plan` value for `plan`, in the form servers of earlier builds read
    /// (``StoredPlan/legacyText(_:)``).
    public static func legacyPlanText(_ plan: PlanTerms) throws -> String {
        try StoredPlan.legacyText(plan)
    }
}

extension ScheduleStep {
    /// The row of `schedule_steps` as both engines store it.
    ///
    /// - Throws: `StoredRowError` for a value this build cannot read (a status, currency, date or instant).
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("schedule_steps")
        self.init(
            id: stored.id, scheduleID: try row.string("schedule_id"), sequence: try row.int("sequence"),
            date: try stored.civilDate("date"), dueAt: try stored.instant("due_at"),
            amount: try row.int64("amount"), currency: try stored.currency("currency"),
            status: try stored.value(StepStatus.self, "status"), attempts: try row.int("attempts"),
            nextAttemptAt: try stored.optionalInstant("next_attempt_at"), binding: try row.optionalBlob("binding"))
    }
}
