/// The names of the metrics an on-call alerts on, as `/metrics` shows them: documented with their
/// labels and suggested alert rules in `docs/alerts.yaml` (whose expressions may name only these).
public enum VaultMetricNames {
    /// Gauge, always 1: `version` of the running build.
    public static let buildInfo = "vault_build_info"
    /// Counter: calls to gateways by `gateway`, `operation` (`sale` is a charge) and `outcome`
    /// (`approved`, `declined`, `error`, `in_doubt`; lookups `found`, `not_found`, `unavailable`).
    public static let gatewayRequests = "vault_gateway_requests_total"
    /// Histogram (seconds): how long gateway calls took, by `gateway` and `operation`.
    public static let gatewayRequestDuration = "vault_gateway_request_duration_seconds"
    /// Counter: steps a charge run served by this process settled, by `outcome` (`approved`, `failed`, ...).
    public static let chargeRunSteps = "vault_charge_run_steps_total"
    /// Gauge: one-off transactions whose gateway answer was lost, waiting for the reconciler.
    public static let transactionsInDoubt = "vault_transactions_in_doubt"
    /// Gauge: one-off transactions waiting for an operator's review.
    public static let transactionsNeedsReview = "vault_transactions_needs_review"
    /// Gauge: scheduled steps whose last attempt is in doubt, for the next run to look up.
    public static let stepsInDoubt = "vault_steps_in_doubt"
    /// Gauge: scheduled steps waiting for an operator's review.
    public static let stepsNeedsReview = "vault_steps_needs_review"
    /// Gauge: webhook events not yet delivered nor expired.
    public static let webhookBacklog = "vault_webhook_backlog"
    /// Gauge (seconds): age of the oldest webhook event not yet delivered (0 when none).
    public static let webhookOldestPendingAge = "vault_webhook_oldest_pending_age_seconds"
    /// Gauge (Unix seconds): when the last charge run (not a dry run) finished; absent before the first.
    public static let chargeRunLastFinished = "vault_charge_run_last_finished_timestamp_seconds"
    /// Gauge: 1 when the last finished charge run completed, 0 when it failed.
    public static let chargeRunLastSucceeded = "vault_charge_run_last_succeeded"
    /// Gauge: live merchant keys wrapped under each master key version, by `kek_version`.
    public static let masterKeyWrappedKeys = "vault_master_key_wrapped_keys"
    /// Gauge: master key versions still wrapping a key (more than one: a rotation not finished).
    public static let masterKeyVersionsInUse = "vault_master_key_versions_in_use"
    /// Counter: e-mail receipts the mail program took, counted by the `vault serve` that sent them.
    public static let receiptsSent = "vault_receipts_sent_total"
    /// Counter: e-mail receipts marked `failed` for good, by `reason` (`refused`: the mail program
    /// refused every attempt or the recipient could not be opened; `altered`: the stored receipt
    /// failed its integrity check and was not sent).
    public static let receiptsFailed = "vault_receipts_failed_total"
    /// Gauge: e-mail receipts waiting to be sent (`pending`).
    public static let receiptsQueued = "vault_receipts_queued"

    /// Every name above.
    public static let all: [String] = [
        buildInfo, gatewayRequests, gatewayRequestDuration, chargeRunSteps, transactionsInDoubt, transactionsNeedsReview, stepsInDoubt,
        stepsNeedsReview, webhookBacklog, webhookOldestPendingAge, chargeRunLastFinished, chargeRunLastSucceeded, masterKeyWrappedKeys,
        masterKeyVersionsInUse, receiptsSent, receiptsFailed, receiptsQueued,
    ]
}
