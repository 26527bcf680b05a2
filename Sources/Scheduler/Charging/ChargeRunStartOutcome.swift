/// What asking for a charge run of one merchant came to: the API's `POST /v1/charge-runs` and the
/// operator console start runs through the same starter and answer from this.
public enum ChargeRunStartOutcome: Sendable {
    /// Recorded (`running`, with its `charge_run.started` audit event) and handed to the runner.
    case started(ChargeRunRecord)
    /// Nothing started: this run of the merchant is already running (one at a time, across servers).
    case alreadyRunning(ChargeRunRecord)
    /// Nothing started: the server is stopping and takes no runs.
    case notAccepting
}
