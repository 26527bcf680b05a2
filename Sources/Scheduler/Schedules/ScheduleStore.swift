public import Foundation
public import Vault

/// A change to one stored step.
public struct StepUpdate: Sendable, Equatable {
    /// The step.
    public var stepID: String
    /// The status the step had when the change was decided: the write happens only while it still
    /// has it and no charge run holds its lease (else ``ScheduleError/stepChanged(stepID:)``), so a
    /// step a runner has just claimed is never skipped, cancelled or re-priced under it.
    public var expectedStatus: StepStatus
    /// New status, if it changes.
    public var status: StepStatus?
    /// New amount, if it changes.
    public var amount: Int64?
    /// The step's new binding (``ScheduleBinding``) when a bound field changes; nil keeps the stored one.
    public var binding: [UInt8]?

    /// Creates an update of a step read in `expectedStatus`.
    public init(stepID: String, expectedStatus: StepStatus, status: StepStatus? = nil, amount: Int64? = nil, binding: [UInt8]? = nil) {
        self.stepID = stepID
        self.expectedStatus = expectedStatus
        self.status = status
        self.amount = amount
        self.binding = binding
    }
}

/// Persistence of schedules and their steps. Every change records its audit event atomically.
public protocol ScheduleStore: Sendable {
    /// Stores a new schedule with its materialized steps.
    func insertSchedule(_ schedule: Schedule, steps: [ScheduleStep], audit: AuditEntry) async throws
    /// Saves a changed schedule, step updates and new steps in one transaction, only if the schedule
    /// still has `expectedStatus` (otherwise throws `ScheduleError.wrongStatus` with the current one)
    /// and every updated step still has its update's expected status with no live lease at
    /// `schedule.updatedAt` (otherwise throws `ScheduleError.stepChanged` and writes nothing).
    func saveSchedule(
        _ schedule: Schedule, expectedStatus: ScheduleStatus, stepUpdates: [StepUpdate], newSteps: [ScheduleStep], audit: AuditEntry
    ) async throws
    /// One schedule of a merchant.
    func schedule(merchantID: String, id: String) async throws -> Schedule?
    /// A page of a merchant's schedules in creation order: only those in `status` when given, only
    /// those charging the card `secureCardReference` (its token) when given.
    func schedules(merchantID: String, status: ScheduleStatus?, secureCardReference: String?, afterSequence: Int64?, limit: Int) async throws
        -> [Schedule]
    /// Every step of a schedule in plan order.
    func steps(scheduleID: String) async throws -> [ScheduleStep]
    /// Marks unconfirmed schedules past their expiry `expired`; returns their ids.
    func expireUnconfirmedSchedules(now: Date) async throws -> [String]
    /// Up to `limit` schedules whose receipt contacts are still in the clear columns (written
    /// before they were sealed).
    func schedulesWithClearContacts(limit: Int) async throws -> [Schedule]
    /// Stores a schedule's sealed contacts and empties the clear columns.
    func sealScheduleContacts(id: String, sealedContacts: [UInt8]?) async throws
    /// Up to `limit` of a merchant's schedules whose contacts are sealed under a data-key version
    /// below `keyVersion` (read from the sealed blob's version header): id and sealed contacts.
    func schedulesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [(id: String, sealed: [UInt8])]
    /// Replaces a schedule's sealed contacts if they are still `old`; returns whether they were.
    func resealScheduleContacts(id: String, old: [UInt8], new: [UInt8]) async throws -> Bool
}

extension ScheduleStore {
    /// A page of a merchant's schedules in creation order, of every card.
    public func schedules(merchantID: String, status: ScheduleStatus?, afterSequence: Int64?, limit: Int) async throws -> [Schedule] {
        try await schedules(merchantID: merchantID, status: status, secureCardReference: nil, afterSequence: afterSequence, limit: limit)
    }
}
