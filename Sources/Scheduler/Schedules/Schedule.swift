public import Foundation
public import Vault

/// Where a schedule is in its life.
public enum ScheduleStatus: String, Sendable, Codable, CaseIterable {
    /// Created; nothing is charged until confirmed.
    case pendingConfirmation = "pending_confirmation"
    /// Confirmed; due steps are charged.
    case active
    /// Paused by the merchant (or by the past-due policy).
    case paused
    /// A step finally failed; later steps continue per policy.
    case pastDue = "past_due"
    /// Every step is settled.
    case completed
    /// Cancelled; no further charges.
    case cancelled
    /// Never confirmed in time.
    case expired

    /// Whether the schedule can still charge or be confirmed.
    public var isOpen: Bool { Self.open.contains(self) }
}

/// Where a step is.
public enum StepStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for its due time.
    case scheduled
    /// A charge attempt is under way.
    case processing
    /// A soft decline; another attempt is planned.
    case retryPending = "retry_pending"
    /// Charged.
    case approved
    /// Finally declined.
    case failed
    /// Skipped by the merchant or while paused.
    case skipped
    /// Cancelled with its schedule.
    case cancelled
    /// Its attempt may have been charged and the gateway cannot prove either way: never sent again
    /// automatically; an operator resolves it (`POST /v1/schedules/{id}/steps/{stepId}/resolve`).
    case needsReview = "needs_review"

    /// Whether the step will not be charged any more.
    public var isSettled: Bool { Self.settled.contains(self) }
}

/// A recurring (or one-off delayed) charge of a secure card.
public struct Schedule: Sendable, Equatable {
    /// Public id, `sch_...`.
    public var id: String
    /// Owner.
    public var merchantID: String
    /// The card charged.
    public var secureCardReference: String
    /// Lifecycle status.
    public var status: ScheduleStatus
    /// The plan as given (time zone, hour and minute filled in).
    public var plan: PlanTerms
    /// Amount per step in minor units (future steps follow changes).
    public var amount: Int64
    /// ISO 4217 currency.
    public var currency: Currency
    /// Merchant's description.
    public var description: String?
    /// Merchant's own id for the schedule.
    public var externalID: String?
    /// Receipt e-mail.
    public var receiptEmail: String?
    /// Receipt phone.
    public var receiptPhone: String?
    /// Open-ended plans: the last date steps exist for.
    public var materializedThrough: CivilDate?
    /// Timestamps.
    public var createdAt: Date
    /// Last change.
    public var updatedAt: Date
    /// When confirmed.
    public var confirmedAt: Date?
    /// When an unconfirmed schedule expires.
    public var expiresAt: Date?
    /// When paused.
    public var pausedAt: Date?
    /// Insertion order.
    public var sequence: Int64
    /// `receiptEmail` and `receiptPhone` sealed under the merchant's data key, as stored (the clear
    /// columns stay empty); nil when there are none.
    public var sealedContacts: [UInt8]? = nil
    /// The MAC binding the fields that move money (``ScheduleBinding``), as stored; nil for a row
    /// not bound yet (written by an earlier build, or inserted behind the vault's back).
    public var binding: [UInt8]? = nil

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        id: String, merchantID: String, secureCardReference: String, status: ScheduleStatus, plan: PlanTerms, amount: Int64,
        currency: Currency, description: String?, externalID: String?, receiptEmail: String?, receiptPhone: String?,
        materializedThrough: CivilDate?, createdAt: Date, updatedAt: Date, confirmedAt: Date?, expiresAt: Date?, pausedAt: Date?,
        sequence: Int64, sealedContacts: [UInt8]? = nil, binding: [UInt8]? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.secureCardReference = secureCardReference
        self.status = status
        self.plan = plan
        self.amount = amount
        self.currency = currency
        self.description = description
        self.externalID = externalID
        self.receiptEmail = receiptEmail
        self.receiptPhone = receiptPhone
        self.materializedThrough = materializedThrough
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.confirmedAt = confirmedAt
        self.expiresAt = expiresAt
        self.pausedAt = pausedAt
        self.sequence = sequence
        self.sealedContacts = sealedContacts
        self.binding = binding
    }
}

/// One dated charge of a schedule.
public struct ScheduleStep: Sendable, Equatable {
    /// Public id, `stp_...`.
    public var id: String
    /// The schedule.
    public var scheduleID: String
    /// Position in the plan, from 1.
    public var sequence: Int
    /// Civil date in the schedule's zone.
    public var date: CivilDate
    /// The instant it falls due.
    public var dueAt: Date
    /// Amount in minor units.
    public var amount: Int64
    /// Currency.
    public var currency: Currency
    /// Status.
    public var status: StepStatus
    /// Charge attempts made.
    public var attempts: Int
    /// When the next attempt is due (retries).
    public var nextAttemptAt: Date?
    /// The MAC binding the fields that move money (``ScheduleBinding``), as stored; nil for a row
    /// not bound yet.
    public var binding: [UInt8]? = nil

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        id: String, scheduleID: String, sequence: Int, date: CivilDate, dueAt: Date, amount: Int64, currency: Currency,
        status: StepStatus, attempts: Int, nextAttemptAt: Date?, binding: [UInt8]? = nil
    ) {
        self.id = id
        self.scheduleID = scheduleID
        self.sequence = sequence
        self.date = date
        self.dueAt = dueAt
        self.amount = amount
        self.currency = currency
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.binding = binding
    }
}
