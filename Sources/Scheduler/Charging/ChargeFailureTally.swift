import Logging

/// The steps of one run that were not approved, counted by merchant, gateway, outcome and code, so
/// the run logs one line per distinct problem (with its count) instead of nothing, or one per step.
/// What needs a person is logged through ``OperatorWarningTally``, as the webhook deliverer's
/// failures are.
struct ChargeFailureTally: Sendable {
    struct Key: Hashable, Sendable {
        var merchantID: String
        var gateway: String
        var outcome: ChargeOutcome
        var code: String
        var cardDeclined: Bool
    }

    private(set) var counts: [Key: Int] = [:]

    /// Counts a step's result (approved ones are not counted).
    mutating func add(_ result: ChargeRunner.StepResult) {
        guard result.outcome != .approved else { return }
        let key = Key(merchantID: result.merchantID ?? "unknown", gateway: result.gateway ?? "unknown", outcome: result.outcome,
                      code: result.code ?? result.outcome.rawValue,
                      cardDeclined: result.cardDeclined)
        counts[key, default: 0] += 1
    }

    /// One line per merchant, outcome and code: a warning for what an operator must look at (the
    /// gateway unreachable or in error, a misconfigured merchant, steps in review), an info line
    /// for the customers' cards declining. `problems` gives, by merchant, why its gateway cannot be
    /// used (never a credential's value).
    func log(to logger: Logger, runID: String, problems: [String: String]) {
        var warnings = OperatorWarningTally()
        for (key, count) in counts.sorted(by: { ($0.key.merchantID, $0.key.gateway, $0.key.code) < ($1.key.merchantID, $1.key.gateway, $1.key.code) }) {
            var details = ["outcome": key.outcome.rawValue]
            let message: String
            switch key.outcome {
            case .retryScheduled, .failed, .expiredCard:
                if key.cardDeclined {
                    logger.info(
                        "charges declined",
                        metadata: [
                            "run": "\(runID)", "merchant": "\(key.merchantID)", "gateway": "\(key.gateway)", "outcome": "\(key.outcome.rawValue)",
                            "code": "\(key.code)", "steps": "\(count)",
                        ])
                    continue
                }
                message = "charges failed: the gateway refused the request"
            case .configurationError:
                if let problem = problems[key.merchantID] { details["reason"] = problem }
                message = "charges not sent: the merchant's gateway is misconfigured"
            case .unsettled:
                message = "charges unsettled: the gateway did not give a final answer"
            case .needsReview where key.code == ChargeRunner.integrityFailedCode:
                message = "charges refused: the stored schedule or step is not as the vault wrote it; sent to review"
            case .needsReview:
                message = "charges need review: the gateway cannot prove whether they were charged"
            case .approved:
                continue
            }
            warnings.add(
                OperatorWarningTally.Cause(merchantID: key.merchantID, gateway: key.gateway, code: key.code, message: message, details: details),
                count: count)
        }
        warnings.log(to: logger, countLabel: "steps", metadata: ["run": "\(runID)"])
    }
}
