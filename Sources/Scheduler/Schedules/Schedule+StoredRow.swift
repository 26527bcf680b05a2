import Foundation
public import Vault

extension Schedule {
    /// The row of `schedules` as both engines store it, its `plan` column decoded.
    public init(storedRow row: some StoredRow) throws {
        try self.init(storedRow: row, plan: JSONDecoder().decode(PlanRequest.self, from: Data(try row.string("plan").utf8)))
    }

    /// The row of `schedules` with its `plan` column already decoded (a batch of schedules often
    /// shares one plan text, decoded once), read in one place so the engines cannot drift apart.
    public init(storedRow row: some StoredRow, plan: PlanRequest) throws {
        self.init(
            id: try row.string("id"), merchantID: try row.string("merchant_id"), secureCardReference: try row.string("secure_card_id"),
            status: ScheduleStatus(rawValue: try row.string("status")) ?? .cancelled, plan: plan, amount: try row.int64("amount"),
            currency: try Currency(code: try row.string("currency")), description: try row.optionalString("description"),
            externalID: try row.optionalString("external_id"), receiptEmail: try row.optionalString("receipt_email"),
            receiptPhone: try row.optionalString("receipt_phone"),
            materializedThrough: try row.optionalString("materialized_through").flatMap { CivilDate(iso: $0) },
            createdAt: try row.storedInstant("created_at"), updatedAt: try row.storedInstant("updated_at"),
            confirmedAt: try row.optionalStoredInstant("confirmed_at"), expiresAt: try row.optionalStoredInstant("expires_at"),
            pausedAt: try row.optionalStoredInstant("paused_at"), sequence: try row.int64("seq"),
            sealedContacts: try row.optionalBlob("sealed_contacts"))
    }
}

extension ScheduleStep {
    /// The row of `schedule_steps` as both engines store it.
    public init(storedRow row: some StoredRow) throws {
        self.init(
            id: try row.string("id"), scheduleID: try row.string("schedule_id"), sequence: try row.int("sequence"),
            date: CivilDate(iso: try row.string("date")) ?? CivilDate(dayNumber: 0), dueAt: try row.storedInstant("due_at"),
            amount: try row.int64("amount"), currency: try Currency(code: try row.string("currency")),
            status: StepStatus(rawValue: try row.string("status")) ?? .cancelled, attempts: try row.int("attempts"),
            nextAttemptAt: try row.optionalStoredInstant("next_attempt_at"))
    }
}
