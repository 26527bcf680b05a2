import Foundation
public import Logging
public import VaultAPI
public import Vault
public import VaultPostgres

/// Everything an operator can set, from `config/vault.yaml` and the `VAULT_*` environment variables.
public struct VaultConfiguration: Sendable, Equatable {
    /// The HTTP listener (the HTTP layer's own settings).
    public typealias Server = HTTPServerSettings

    /// The database: the embedded SQLite file, or PostgreSQL when a URL is given.
    public struct Database: Sendable, Equatable {
        /// SQLite file path (used when `url` is nil).
        public var path = "data/vault.sqlite"
        /// SQLite reader connections beside the writer.
        public var readers = 4
        /// PostgreSQL (`database.url` or `VAULT_DATABASE_URL`): several servers and runners on one database.
        public var url: PostgresURL?
        /// A file whose first line is the PostgreSQL password (instead of writing it in `url`).
        public var passwordFile: String?
        /// PostgreSQL connections per process at most.
        public var maxConnections = 20

        /// The backend in use, for logs, `vault migrate` and `vault status` (never a password): the
        /// SQLite path is absolute, so a runner started from an unexpected directory shows it.
        public var summary: String { url.map { "PostgreSQL \($0)" } ?? "SQLite \(absolutePath)" }

        /// `path` resolved against the working directory.
        public var absolutePath: String { VaultConfiguration.absolute(path) }
    }

    /// Where the master key comes from.
    public struct Keys: Sendable, Equatable {
        /// Directory holding `master.key`.
        public var directory = "keys"
        /// Base64 KEK (or `version:base64,...`) given in the environment instead of a file.
        public var masterKeyFromEnvironment: String?
        /// Passphrase turned into the KEK with Argon2id (salt kept in the keys directory).
        public var passphraseFromEnvironment: String?
        /// How long a master key version should stay current before `keys rotate` (days):
        /// `keys status` warns past it.
        public var cryptoperiodDays = 365
    }

    /// Defaults for new merchants and schedules.
    public struct Defaults: Sendable, Equatable {
        /// IANA zone.
        public var timeZone = "UTC"
        /// Gateway adapter.
        public var gateway = "sandbox"
        /// Local hour steps fall due.
        public var hour = 9
        /// Local minute steps fall due.
        public var minute = 0
    }

    /// Schedule limits.
    public struct Schedules: Sendable, Equatable {
        /// Largest `endCount`.
        public var maxStepCount = 1000
        /// Days ahead that open-ended plans are materialized.
        public var horizonDays = 400
        /// Hours before an unconfirmed schedule expires.
        public var confirmationTimeoutHours = 72
    }

    /// What happens to a schedule whose step finally failed.
    public enum PastDuePolicy: String, Sendable, Equatable, CaseIterable {
        /// Keep charging later steps.
        case `continue`
        /// Pause the schedule.
        case pause
        /// Cancel the schedule.
        case cancel
    }

    /// Soft-decline retries.
    public struct Retry: Sendable, Equatable {
        /// Days after each failed attempt before the next.
        public var delaysDays = [1, 3, 5]
        /// Attempts per step, the first included.
        public var maxAttempts = 4
        /// After the last failure.
        public var pastDuePolicy = PastDuePolicy.continue
    }

    /// The charge runner.
    public struct Runner: Sendable, Equatable {
        /// Gateway calls in flight at once.
        public var concurrency = 16
        /// Steps leased per claim.
        public var batchSize = 256
        /// How long a claim holds a step.
        public var leaseSeconds = 300
        /// In-run retries of gateway errors.
        public var gatewayRetries = 2
        /// How long a sale whose outcome is unknown is left alone: its step is not claimed again, and
        /// it is re-sent (same idempotency key) only when, after this, the gateway still has no record of it.
        public var inDoubtGraceSeconds = 120
        /// How long one exchange with a gateway may take, for every gateway call of the process
        /// (the runner's charges and the API's sales alike); after it, a sale that was sent is in doubt.
        public var gatewayTimeoutSeconds = 30
        /// After this many consecutive charges of one merchant that reached no gateway (connection
        /// refused or not established: nothing sent), the run stops charging that merchant and says so;
        /// its remaining steps stay due for the next run.
        public var unreachableLimit = 10
    }

    /// The reconciler: every transaction in doubt (or left pending by a process that died) is looked
    /// up at its gateway once `runner.inDoubtGraceSeconds` have passed.
    public struct Reconcile: Sendable, Equatable {
        /// How often `vault serve` looks for transactions to settle, and how long one still in doubt
        /// waits before it is looked up again.
        public var intervalSeconds = 60
        /// After this many days held for review at the gateway (fraud screening), a transaction goes
        /// to operator review instead of staying in doubt.
        public var heldForReviewDays = 3
    }

    /// Webhook delivery.
    public struct Webhooks: Sendable, Equatable {
        /// Per-delivery HTTP timeout.
        public var timeoutSeconds = 10
        /// How long an event is retried before it expires.
        public var retryHours = 72
        /// First retry delay; doubles per attempt.
        public var initialBackoffSeconds = 30
        /// Longest delay between attempts.
        public var maxBackoffSeconds = 3600
        /// Events claimed per delivery round.
        public var batchSize = 100
        /// Seconds between delivery rounds in `vault serve`.
        public var pollSeconds = 5
        /// Days delivered and expired events are kept before they are deleted.
        public var keepDays = 30
        /// Whether callback URLs may point at loopback, private or link-local addresses (checked
        /// when a merchant's callback URL is set and again on the resolved address at every
        /// delivery). Off: a callback cannot be used to reach services on the vault's own host or
        /// network. Tests and local development turn it on for receivers on 127.0.0.1.
        public var allowPrivateTargets = false
    }

    /// Hosted card capture.
    public struct Capture: Sendable, Equatable {
        /// Hours a capture session is kept after it ended (used, or expired): then `vault serve`
        /// deletes it with the sealed data it holds. A session still open is never deleted.
        public var sessionRetentionHours = 24
    }

    /// E-mail receipts: the mail program and sender, and how refusals are retried.
    public struct Receipts: Sendable, Equatable {
        /// A sendmail-compatible program with its arguments, run without a shell (absolute path,
        /// split at spaces); empty for none. Requests asking for an e-mail receipt are refused 422
        /// `receipts_not_configured` while this is not an executable file or `from` is unset.
        public var sendmailCommand = "/usr/sbin/sendmail -t -i"
        /// The sender address of every receipt (`From`, with the merchant's name as display name).
        public var from: String?
        /// Refusals by the mail program before a receipt is marked `failed`.
        public var maxAttempts = 8
        /// First retry delay; doubles per attempt.
        public var initialBackoffSeconds = 60
        /// Longest delay between attempts.
        public var maxBackoffSeconds = 3600
        /// Seconds between delivery rounds in `vault serve`.
        public var pollSeconds = 5
        /// Seconds a claimed receipt is held by one deliverer before another may claim it.
        public var leaseSeconds = 300
        /// Days a sent or failed receipt is kept (listed by `GET /v1/receipts`) before the
        /// deliverer's periodic pass deletes it; pending receipts are kept whatever their age.
        public var retentionDays = 90
    }

    /// Per-API-key request rate limiting (token bucket).
    public typealias RateLimit = RateLimitSettings

    /// Log output.
    public struct Logging: Sendable, Equatable {
        /// Lowest level written.
        public var level = Logger.Level.info
        /// `json` lines or human `text`.
        public var format = "json"
    }

    /// The configuration file these values were read from; nil: none was named and
    /// `config/vault.yaml` did not exist, so the built-in defaults (and `VAULT_*` variables) apply.
    public var file: String?

    /// The HTTP listener.
    public var server = Server()
    /// The metrics listener (`/metrics`, apart from the API).
    public var metrics = MetricsSettings()
    /// The database.
    public var database = Database()
    /// Master key source.
    public var keys = Keys()
    /// Defaults.
    public var defaults = Defaults()
    /// Schedule limits.
    public var schedules = Schedules()
    /// Retry policy.
    public var retry = Retry()
    /// Hours an idempotency key is remembered.
    public var idempotencyRetentionHours = 24
    /// Hosted card capture (`capture.sessionRetentionHours`).
    public var capture = Capture()
    /// Webhook delivery.
    public var webhooks = Webhooks()
    /// E-mail receipts.
    public var receipts = Receipts()
    /// The charge runner.
    public var runner = Runner()
    /// Settling transactions whose gateway answer was lost.
    public var reconcile = Reconcile()
    /// The operator console's sign-in lockout and session limits (within what PCI DSS v4.0 8.2.8
    /// and 8.3.4 allow: at most 10 attempts, locked at least 30 minutes, at most 15 idle minutes).
    public var console = ConsolePolicy()
    /// Per-API-key rate limiting.
    public var rateLimit = RateLimit()
    /// Log output.
    public var logging = Logging()

    /// Hours after its authorization a payment may still be voided (24 by default); later, refund.
    public var reversalWindowHours = 24

    /// Seconds within which the same sale, authorization or credit (card, amount, currency) is a
    /// duplicate, refused unless the request says `allowDuplicate: true`; 0 turns it off.
    public var duplicateWindowSeconds = 300

    /// The built-in defaults (the same values as the committed `config/vault.yaml`).
    public init() {}

    /// `path` resolved against the working directory (relative paths in the configuration are
    /// relative to it, not to the configuration file).
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL.path
    }
}
