public import Foundation

/// How a charge attempt ended, as the summary counts it.
public enum ChargeOutcome: String, Sendable, Codable, CaseIterable {
    /// Charged.
    case approved
    /// Soft decline; another attempt is scheduled.
    case retryScheduled = "retry_scheduled"
    /// Hard decline, or the last attempt declined: the step failed.
    case failed
    /// Declined by the vault without a gateway call: the card expires before the due date.
    case expiredCard = "expired_card"
    /// Gateway unreachable or outcome unknown: left in doubt, settled by the next run.
    case unsettled
    /// Outcome unknown and the gateway cannot prove it never charged: left for an operator
    /// (`needs_review`), never sent again automatically.
    case needsReview = "needs_review"
    /// The merchant's gateway cannot be used as configured (a credential missing, an unknown
    /// gateway, a bad endpoint): nothing was sent. A new step is left due, untouched, and is
    /// charged by the first run after the merchant is fixed; re-running before that changes nothing.
    case configurationError = "configuration_error"
}

/// Counts and per-currency totals for one outcome.
public struct OutcomeTotals: Sendable, Codable, Equatable {
    /// Steps.
    public var count = 0
    /// Minor units per ISO 4217 code.
    public var totals: [String: Int64] = [:]

    mutating func add(amount: Int64, currency: String) {
        count += 1
        totals[currency, default: 0] += amount
    }
}

/// What a charge run did (`vault charge run --json` prints this object).
public struct ChargeRunSummary: Sendable, Codable, Equatable {
    /// The run.
    public var runId: String
    /// Steps had to be due by this instant.
    public var asOf: Date
    /// Only reported; nothing changed.
    public var dryRun: Bool
    /// Steps found due at the start.
    public var due: OutcomeTotals
    /// Per outcome.
    public var outcomes: [String: OutcomeTotals]
    /// Open-ended schedules that got new steps.
    public var schedulesExtended: Int
    /// Schedules completed by this run.
    public var schedulesCompleted: Int
    /// Schedules made past due by this run.
    public var schedulesPastDue: Int
    /// Wall time.
    public var durationSeconds: Double
    /// Steps processed per second.
    public var chargesPerSecond: Double
    /// Whether every processed step was settled (approved or declined) and no due step is left in
    /// doubt, held back until its grace period has passed (a later run settles it).
    public var settled: Bool
    /// Steps waiting in review (`needs_review`, of this run's merchant, or all) when the run ended,
    /// from this run or earlier ones: never charged again until an operator resolves them.
    public var stepsInReview = 0
    /// Claimed steps not charged because this build cannot read their stored rows (a value written
    /// by a newer build, or damaged): each is logged with the row and column; a later run (or a
    /// newer build) tries them again.
    public var stepsUnreadable = 0
    /// Claimed steps refused because their schedule's or their own stored row is not as the vault
    /// wrote it (a card, amount, currency, plan or due date altered in the database): sent to
    /// review (`needs_review`, also counted there) with an audit event naming the reason, never charged.
    public var integrityFailures = 0
    /// Steps not approved, by why: the gateway's decline or error code (`card_declined`,
    /// `gateway_unreachable`, `gateway_not_configured`, ...), or the vault's own (`expired_card`,
    /// `merchant_not_found`, `outcome_not_written`).
    public var failuresByCode: [String: Int] = [:]
    /// Merchants the run stopped charging because their gateway was unreachable for
    /// `runner.unreachableLimit` sales in a row; their remaining steps stay due for the next run.
    public var unreachableMerchants: [String] = []
    /// Why the run stopped before charging every due step (`signal`: SIGTERM or SIGINT;
    /// `max_duration`: its deadline passed; `shutdown`: `vault serve` was stopped), or nil when it
    /// ran to the end. The steps it did not begin stay due for the next run.
    public var stoppedBy: String?

    /// An empty summary.
    public init(runId: String, asOf: Date, dryRun: Bool) {
        self.runId = runId
        self.asOf = asOf
        self.dryRun = dryRun
        self.due = OutcomeTotals()
        self.outcomes = Dictionary(uniqueKeysWithValues: ChargeOutcome.allCases.map { ($0.rawValue, OutcomeTotals()) })
        self.schedulesExtended = 0
        self.schedulesCompleted = 0
        self.schedulesPastDue = 0
        self.durationSeconds = 0
        self.chargesPerSecond = 0
        self.settled = true
    }

    /// Steps processed so far.
    public var processed: Int { outcomes.values.reduce(0) { $0 + $1.count } }

    /// Notes that the run stopped claiming early (`reason`): the steps not begun are not settled.
    mutating func recordStop(_ reason: String) {
        guard stoppedBy == nil else { return }
        stoppedBy = reason
        settled = false
    }

    /// Counts a claimed step whose stored rows cannot be read: the run is not settled.
    mutating func recordUnreadable() {
        stepsUnreadable += 1
        settled = false
    }

    mutating func record(_ outcome: ChargeOutcome, amount: Int64, currency: String, code: String? = nil) {
        outcomes[outcome.rawValue, default: OutcomeTotals()].add(amount: amount, currency: currency)
        if outcome != .approved { failuresByCode[code ?? outcome.rawValue, default: 0] += 1 }
        if [.unsettled, .needsReview, .configurationError].contains(outcome) { settled = false }
    }

    /// The summary as a human table.
    public var table: String {
        var lines = ["charge run \(runId)\(dryRun ? " (dry run)" : "") as of \(Self.instant(asOf))"]
        lines.append("  due at start     \(Self.pad(due.count)) \(Self.money(due.totals))")
        for outcome in ChargeOutcome.allCases {
            let totals = outcomes[outcome.rawValue] ?? OutcomeTotals()
            lines.append("  \(outcome.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(Self.pad(totals.count)) \(Self.money(totals.totals))")
        }
        lines.append("  schedules: \(schedulesExtended) extended, \(schedulesCompleted) completed, \(schedulesPastDue) past due")
        if !failuresByCode.isEmpty {
            let codes = failuresByCode.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            lines.append("  not approved, by code: " + codes.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if !unreachableMerchants.isEmpty {
            lines.append("  GATEWAY UNREACHABLE: stopped charging merchant(s) \(unreachableMerchants.joined(separator: ", ")); "
                + "their remaining steps stay due for the next run")
        }
        if let stoppedBy {
            lines.append("  STOPPED EARLY (\(stoppedBy)) after \(processed) of \(due.count) due step(s); the rest stay due for the next run")
        }
        let misconfigured = outcomes[ChargeOutcome.configurationError.rawValue]?.count ?? 0
        if misconfigured > 0 {
            lines.append("  \(misconfigured) step(s) NOT SENT: their merchant's gateway is misconfigured (see the log); "
                + "fix it with `vault merchant update`, then run again")
        }
        if stepsUnreadable > 0 {
            lines.append("  \(stepsUnreadable) step(s) NOT CHARGED: their stored rows cannot be read by this build (see the log)")
        }
        if integrityFailures > 0 {
            lines.append("  \(integrityFailures) step(s) REFUSED: their stored schedule or step was altered in the database (see the audit log, "
                + "charge.integrity_failed); sent to review, not charged")
        }
        if stepsInReview > 0 {
            lines.append("  \(stepsInReview) step(s) in review: resolve with POST /v1/schedules/{id}/steps/{stepId}/resolve")
        }
        lines.append(String(format: "  %.2f s, %.1f charges/s; %@", durationSeconds, chargesPerSecond, settled ? "every step settled" : needsReviewText))
        return lines.joined(separator: "\n")
    }

    private var needsReviewText: String {
        let review = outcomes[ChargeOutcome.needsReview.rawValue]?.count ?? 0
        let misconfigured = outcomes[ChargeOutcome.configurationError.rawValue]?.count ?? 0
        if review > 0 { return "\(review) STEP(S) NEED REVIEW (resolve them with POST /v1/schedules/{id}/steps/{stepId}/resolve)" }
        if misconfigured > 0 { return "\(misconfigured) STEP(S) NOT SENT: GATEWAY MISCONFIGURED" }
        return "SOME STEPS UNSETTLED (re-run to settle)"
    }

    static func pad(_ count: Int) -> String {
        let text = String(count)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }

    /// Per-currency totals as money (`$246,800.00, ¥5,000`), in the order of their codes.
    static func money(_ totals: [String: Int64]) -> String {
        totals.keys.sorted().map { code in MoneyText.format(totals[code] ?? 0, code: code) }.joined(separator: ", ")
    }

    static func instant(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}

extension ChargeRunSummary {
    enum CodingKeys: String, CodingKey {
        case runId, asOf, dryRun, due, outcomes, schedulesExtended, schedulesCompleted, schedulesPastDue, durationSeconds,
             chargesPerSecond, settled, stepsInReview, stepsUnreadable, integrityFailures, failuresByCode, unreachableMerchants, stoppedBy
    }

    /// Decodes a summary; one recorded before `stepsInReview`, `stepsUnreadable`, `failuresByCode`,
    /// `unreachableMerchants` or `stoppedBy` existed has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        runId = try container.decode(String.self, forKey: .runId)
        asOf = try container.decode(Date.self, forKey: .asOf)
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
        due = try container.decode(OutcomeTotals.self, forKey: .due)
        outcomes = try container.decode([String: OutcomeTotals].self, forKey: .outcomes)
        schedulesExtended = try container.decode(Int.self, forKey: .schedulesExtended)
        schedulesCompleted = try container.decode(Int.self, forKey: .schedulesCompleted)
        schedulesPastDue = try container.decode(Int.self, forKey: .schedulesPastDue)
        durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
        chargesPerSecond = try container.decode(Double.self, forKey: .chargesPerSecond)
        settled = try container.decode(Bool.self, forKey: .settled)
        stepsInReview = try container.decodeIfPresent(Int.self, forKey: .stepsInReview) ?? 0
        stepsUnreadable = try container.decodeIfPresent(Int.self, forKey: .stepsUnreadable) ?? 0
        integrityFailures = try container.decodeIfPresent(Int.self, forKey: .integrityFailures) ?? 0
        failuresByCode = try container.decodeIfPresent([String: Int].self, forKey: .failuresByCode) ?? [:]
        unreachableMerchants = try container.decodeIfPresent([String].self, forKey: .unreachableMerchants) ?? []
        stoppedBy = try container.decodeIfPresent(String.self, forKey: .stoppedBy)
    }
}
