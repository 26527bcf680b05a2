import Scheduler

/// The exit status of `vault charge run`, so a scheduler (cron, a systemd timer) can tell what to do.
enum ChargeRunExitCode {
    /// Every due step was settled (approved or declined).
    static let settled: Int32 = 0
    /// The run could not run: configuration, database or key errors (nothing was charged).
    static let fatal: Int32 = 1
    /// Usage error: a bad option.
    static let usage: Int32 = 2
    /// Some steps are not settled and a later run settles them: sales in doubt (re-run after
    /// `runner.inDoubtGraceSeconds`), a gateway unreachable, a run stopped early by a signal or
    /// `--max-duration`, rows this build cannot read.
    static let unsettled: Int32 = 3
    /// Some steps need an operator: sent to review by this run (the gateway cannot prove whether
    /// they were charged), or not sent because their merchant's gateway is misconfigured.
    /// Re-running does not change them.
    static let needsOperator: Int32 = 4

    /// The status for a finished run's summary.
    static func code(for summary: ChargeRunSummary) -> Int32 {
        let review = summary.outcomes[ChargeOutcome.needsReview.rawValue]?.count ?? 0
        let misconfigured = summary.outcomes[ChargeOutcome.configurationError.rawValue]?.count ?? 0
        if review > 0 || misconfigured > 0 { return needsOperator }
        return summary.settled ? settled : unsettled
    }

    /// The codes as the command's help and the README give them.
    static let help = """
        Exit codes: 0 every due step settled; 1 could not run (configuration, database, keys); 2 usage; \
        3 some steps unsettled (in doubt, gateway unreachable, stopped early): run again after runner.inDoubtGraceSeconds; \
        4 some steps need an operator (in review, or their merchant's gateway is misconfigured).
        """
}
