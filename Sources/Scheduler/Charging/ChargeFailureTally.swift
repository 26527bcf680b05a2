import Logging

/// The steps of one run that were not approved, counted by merchant, outcome and code, so the run
/// logs one line per distinct problem (with its count) instead of nothing, or one per step.
struct ChargeFailureTally: Sendable {
    struct Key: Hashable, Sendable {
        var merchantID: String
        var outcome: ChargeOutcome
        var code: String
        var cardDeclined: Bool
    }

    private(set) var counts: [Key: Int] = [:]

    /// Counts a step's result (approved ones are not counted).
    mutating func add(_ result: ChargeRunner.StepResult) {
        guard result.outcome != .approved else { return }
        let key = Key(merchantID: result.merchantID ?? "unknown", outcome: result.outcome, code: result.code ?? result.outcome.rawValue,
                      cardDeclined: result.cardDeclined)
        counts[key, default: 0] += 1
    }

    /// One line per merchant, outcome and code: a warning for what an operator must look at (the
    /// gateway unreachable or in error, a misconfigured merchant, steps in review), an info line
    /// for the customers' cards declining. `problems` gives, by merchant, why its gateway cannot be
    /// used (never a credential's value).
    func log(to logger: Logger, runID: String, problems: [String: String]) {
        for (key, count) in counts.sorted(by: { ($0.key.merchantID, $0.key.code) < ($1.key.merchantID, $1.key.code) }) {
            var metadata: Logger.Metadata = [
                "run": "\(runID)", "merchant": "\(key.merchantID)", "outcome": "\(key.outcome.rawValue)", "code": "\(key.code)", "steps": "\(count)",
            ]
            switch key.outcome {
            case .retryScheduled, .failed, .expiredCard:
                if key.cardDeclined {
                    logger.info("charges declined", metadata: metadata)
                } else {
                    logger.warning("charges failed: the gateway refused the request", metadata: metadata)
                }
            case .configurationError:
                if let problem = problems[key.merchantID] { metadata["reason"] = "\(problem)" }
                logger.warning("charges not sent: the merchant's gateway is misconfigured", metadata: metadata)
            case .unsettled:
                logger.warning("charges unsettled: the gateway did not give a final answer", metadata: metadata)
            case .needsReview where key.code == ChargeRunner.integrityFailedCode:
                logger.warning("charges refused: the stored schedule or step is not as the vault wrote it; sent to review", metadata: metadata)
            case .needsReview:
                logger.warning("charges need review: the gateway cannot prove whether they were charged", metadata: metadata)
            case .approved:
                break
            }
        }
    }
}
