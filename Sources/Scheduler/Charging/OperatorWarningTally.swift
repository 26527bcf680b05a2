import Logging

/// Failures that need a person, counted by cause (merchant, gateway or receiver, error code), so
/// a charge run or a webhook delivery round logs one warning per cause with its count instead of
/// one line per charge or event: an unreachable gateway, credentials the gateway refuses, a run
/// that could not settle its charges, a merchant's webhook receiver that is down.
///
/// The one mechanism for such warnings: the charge runner (``ChargeFailureTally``) and the webhook
/// deliverer both count into it and log through it.
struct OperatorWarningTally: Sendable {
    /// What went wrong, for whom.
    public struct Cause: Hashable, Sendable {
        /// The merchant.
        public var merchantID: String
        /// The gateway (`sandbox`, `nmi`, ...), or `webhook` for the merchant's webhook receiver.
        public var gateway: String
        /// The error code (a gateway's decline or error code, a delivery's reason).
        public var code: String
        /// The warning's message: what happened and what it needs.
        public var message: String
        /// More labels of the cause (never a card number, body or credential).
        public var details: [String: String]

        public init(merchantID: String, gateway: String, code: String, message: String, details: [String: String] = [:]) {
            self.merchantID = merchantID
            self.gateway = gateway
            self.code = code
            self.message = message
            self.details = details
        }
    }

    /// How often each cause was counted.
    public private(set) var counts: [Cause: Int] = [:]

    public init() {}

    /// Whether nothing was counted.
    public var isEmpty: Bool { counts.isEmpty }

    /// Counts `count` more failures of `cause`.
    public mutating func add(_ cause: Cause, count: Int = 1) {
        counts[cause, default: 0] += count
    }

    /// One warning per cause (in merchant, gateway and code order) with its count under
    /// `countLabel`, and `metadata` on every line.
    public func log(to logger: Logger, countLabel: String, metadata: Logger.Metadata = [:]) {
        let ordered = counts.sorted { ($0.key.merchantID, $0.key.gateway, $0.key.code, $0.key.message) < ($1.key.merchantID, $1.key.gateway, $1.key.code, $1.key.message) }
        for (cause, count) in ordered {
            var line = metadata
            line["merchant"] = "\(cause.merchantID)"
            line["gateway"] = "\(cause.gateway)"
            line["code"] = "\(cause.code)"
            line[countLabel] = "\(count)"
            for (key, value) in cause.details { line[key] = "\(value)" }
            logger.warning("\(cause.message)", metadata: line)
        }
    }
}
