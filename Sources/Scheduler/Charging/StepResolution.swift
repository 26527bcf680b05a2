public import Foundation
public import Payments
public import Vault

/// An operator's answer for a step in review (`needs_review`), after checking with the gateway.
public enum StepResolution: Sendable, Equatable {
    /// The customer was charged: the gateway's transaction id, recorded on the attempt.
    case charged(gatewayTransactionID: String)
    /// The customer was not charged: the step falls due again under the retry policy.
    case notCharged
}

/// The body of `POST /v1/schedules/{id}/steps/{stepId}/resolve`:
/// `{"outcome": "charged", "gatewayTransactionId": "..."}` or `{"outcome": "not_charged"}`.
public struct StepResolutionRequest: Decodable, Sendable {
    /// The resolution asked for.
    public var resolution: StepResolution

    /// Longest gateway transaction id accepted.
    public static let maximumTransactionIDLength = 64

    enum CodingKeys: String, CodingKey {
        case outcome, gatewayTransactionId
    }

    /// Creates a request.
    public init(resolution: StepResolution) {
        self.resolution = resolution
    }

    /// Decodes and checks the body: `outcome` is `charged` or `not_charged`; `gatewayTransactionId`
    /// is required with `charged` (1-64 letters, digits, `.`, `_`, `-`, never card-number shaped)
    /// and refused with `not_charged`.
    /// - Throws: ``StepReviewError/invalid(field:rule:message:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let outcome = try? container.decodeIfPresent(String.self, forKey: .outcome) else {
            throw StepReviewError.invalid(field: "outcome", rule: "required", message: "outcome is required: charged or not_charged.")
        }
        let transactionID: String?
        do {
            transactionID = try container.decodeIfPresent(String.self, forKey: .gatewayTransactionId)
        } catch {
            throw StepReviewError.invalid(field: "gatewayTransactionId", rule: "invalid_value", message: "gatewayTransactionId must be a string.")
        }
        switch outcome {
        case "charged":
            guard let transactionID else {
                throw StepReviewError.invalid(
                    field: "gatewayTransactionId", rule: "required", message: "gatewayTransactionId is required when the outcome is charged.")
            }
            try Self.check(transactionID)
            resolution = .charged(gatewayTransactionID: transactionID)
        case "not_charged":
            guard transactionID == nil else {
                throw StepReviewError.invalid(
                    field: "gatewayTransactionId", rule: "not_allowed", message: "gatewayTransactionId is only given when the outcome is charged.")
            }
            resolution = .notCharged
        default:
            throw StepReviewError.invalid(field: "outcome", rule: "invalid_value", message: "outcome must be charged or not_charged.")
        }
    }

    static func check(_ transactionID: String) throws(StepReviewError) {
        let allowed = transactionID.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }
        guard (1...maximumTransactionIDLength).contains(transactionID.count), allowed else {
            throw .invalid(field: "gatewayTransactionId", rule: "invalid_value",
                           message: "gatewayTransactionId must be 1 to \(maximumTransactionIDLength) letters, digits, '.', '_' or '-'.")
        }
        do {
            try CardNumberShape.refuse(transactionID, field: "gatewayTransactionId")
        } catch {
            throw .invalid(field: "gatewayTransactionId", rule: error.code, message: error.message)
        }
    }
}

/// Why a step could not be resolved.
public enum StepReviewError: Error, Equatable, Sendable {
    /// The body breaks a rule (422).
    case invalid(field: String, rule: String, message: String)
    /// No such schedule or step for this merchant (404).
    case notFound(String)
    /// The step is not in review (409).
    case wrongStatus(current: StepStatus)
}

/// Reads what resolving a step needs.
public protocol StepReviewStore: Sendable {
    /// The step's latest attempt (the one in review), of `merchantID`.
    func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction?
    /// Steps in review (`needs_review`), of `merchantID` when given.
    func stepsInReview(merchantID: String?) async throws -> Int
}

/// Resolves steps in review (`needs_review`): an operator says whether the customer was charged.
public struct StepReviewService: Sendable {
    private let store: any ChargeRunStore & ScheduleStore & StepReviewStore
    private let policy: RetryPolicy

    /// A service over `store`; `not_charged` steps fall due again under `policy`.
    public init(store: any ChargeRunStore & ScheduleStore & StepReviewStore, policy: RetryPolicy) {
        self.store = store
        self.policy = policy
    }

    /// Resolves a step in review, in one write with its audit event (`charge.resolved`) and webhooks.
    ///
    /// `charged`: the attempt is recorded approved with the gateway's transaction id, the step is
    /// `approved` (the schedule completes if it was its last open step; `transaction.approved`
    /// is sent). `notCharged`: the attempt is recorded as an error (`not_charged`) and the step
    /// falls due again under the retry policy (`retry_pending` at the policy's next attempt, or
    /// `failed` with the past-due policy when no attempt remains).
    /// - Returns: the step as resolved.
    /// - Throws: ``StepReviewError`` (404 unknown schedule or step, 409 when not in review).
    public func resolve(
        scheduleID: String, stepID: String, _ resolution: StepResolution, merchant: Merchant, actor: String, now: Date = Date()
    ) async throws -> ScheduleStep {
        guard let schedule = try await store.schedule(merchantID: merchant.id, id: scheduleID) else { throw StepReviewError.notFound("schedule") }
        guard let step = try await store.steps(scheduleID: scheduleID).first(where: { $0.id == stepID }) else {
            throw StepReviewError.notFound("step")
        }
        guard step.status == .needsReview else { throw StepReviewError.wrongStatus(current: step.status) }
        guard var transaction = try await store.latestAttempt(stepID: step.id, attempt: step.attempts, merchantID: merchant.id) else {
            throw StepReviewError.wrongStatus(current: step.status)
        }
        transaction.updatedAt = now
        var outcome: StepOutcome
        var details = ["step": step.id, "schedule": schedule.id, "attempt": String(step.attempts)]
        switch resolution {
        case .charged(let gatewayTransactionID):
            transaction.status = .approved
            transaction.gatewayTransactionID = gatewayTransactionID
            transaction.errorCode = nil
            transaction.responseText = "Resolved by an operator: charged."
            outcome = StepOutcome(transaction: transaction, stepStatus: .approved)
            details["outcome"] = "charged"
            details["gatewayTransactionId"] = gatewayTransactionID
        case .notCharged:
            transaction.status = .error
            transaction.errorCode = "not_charged"
            transaction.responseText = "Resolved by an operator: not charged."
            let previous = step.nextAttemptAt ?? step.dueAt
            if let next = policy.nextAttempt(after: max(1, step.attempts), previousDueAt: previous) {
                outcome = StepOutcome(transaction: transaction, stepStatus: .retryPending, nextAttemptAt: next)
            } else {
                outcome = StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy)
            }
            details["outcome"] = "not_charged"
        }
        outcome.expectedStepStatus = .needsReview
        details["stepStatus"] = outcome.stepStatus.rawValue
        let audit = AuditEntry(
            merchantID: merchant.id, actor: actor, action: "charge.resolved", objectType: "transaction", objectID: transaction.id, details: details)
        let written = try await store.recordOutcomes([AttemptOutcome(outcome: outcome, step: step, schedule: schedule, audit: audit)])
        if case .failure(let error) = written.first { throw error }
        guard let resolved = try await store.steps(scheduleID: scheduleID).first(where: { $0.id == stepID }) else {
            throw StepReviewError.notFound("step")
        }
        return resolved
    }
}
