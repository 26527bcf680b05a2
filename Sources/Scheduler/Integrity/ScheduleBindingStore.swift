public import Foundation
public import Vault

/// What binding schedule and step rows (``ScheduleBinding``) needs stored: the rows of an earlier
/// build to bind once, and the refusal of a claimed step whose rows fail their check.
public protocol ScheduleBindingStore: Sendable {
    /// Up to `limit` schedules (in insertion order) whose row, or one of whose steps' rows, has no
    /// binding: written by an earlier build, or inserted behind the vault's back.
    func schedulesWithUnboundRows(limit: Int) async throws -> [Schedule]
    /// Stores bindings for schedule and step rows that still have none (a row bound meanwhile keeps
    /// its own), with `audit` when given, in one write.
    func bindScheduleRows(schedules: [(id: String, binding: [UInt8])], steps: [(id: String, binding: [UInt8])], audit: AuditEntry?) async throws
    /// Sends claimed steps to review (`needs_review`) without an attempt, releasing the lease
    /// `owner` holds, each with its audit event, in one write; a step no longer leased by `owner`
    /// is left as it is. Nothing is sent to a gateway for them.
    func refuseSteps(_ refusals: [(stepID: String, audit: AuditEntry)], owner: String, now: Date) async throws
}
