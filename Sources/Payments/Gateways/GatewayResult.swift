/// Whether a decline is worth retrying later.
///
/// `hard`: the issuer will keep saying no (stolen card, closed account, expired card); do not
/// retry. `soft`: the same card may be approved later (insufficient funds, issuer unavailable);
/// retry on the configured schedule.
public enum DeclineCategory: String, Sendable, Codable, CaseIterable {
    /// Do not retry with the same card data.
    case hard
    /// May succeed on a later attempt.
    case soft
}

/// What a gateway said about one operation, normalized across gateways.
///
/// Adapters never throw: network trouble, configuration trouble and unreadable replies are all
/// results. The raw gateway fields are kept beside the normalized ``outcome`` for the
/// transaction record (`gateway: {transactionId, authCode, ...}` in the API).
public struct GatewayResult: Sendable, Equatable, CustomStringConvertible {
    /// The normalized outcome of an operation.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The gateway approved the operation.
        case approved
        /// The issuer or gateway declined the card; `code` is a stable snake-case reason such as
        /// `card_declined`, `generic_decline`, `insufficient_funds`, `expired_card`,
        /// `processing_error`, `do_not_honor`, `invalid_cvv` (the full list is in the gateway notes).
        case declined(code: String, category: DeclineCategory)
        /// Not a decline: gateway, network or configuration trouble. `retryable` is `true` when
        /// the same request may be sent again as is (nothing was charged).
        case error(code: String, retryable: Bool)
        /// The request was (or may have been) sent, but its outcome is unknown: a timeout after
        /// sending, a lost connection, an unreadable reply, a transaction held for review.
        /// Resolve with ``GatewayAdapter/lookup(reference:gatewayTransactionID:)``; never send
        /// the charge again blindly.
        case inDoubt(reason: String)

        /// `approved`, `declined(code, hard|soft)`, `error(code, retryable|final)` or `in_doubt(reason)`.
        public var description: String {
            switch self {
            case .approved: "approved"
            case let .declined(code, category): "declined(\(code), \(category.rawValue))"
            case let .error(code, retryable): "error(\(code), \(retryable ? "retryable" : "final"))"
            case let .inDoubt(reason): "in_doubt(\(reason))"
            }
        }
    }

    /// The normalized outcome.
    public var outcome: Outcome
    /// The gateway's transaction id, when it assigned one (also for many declines).
    public var transactionID: String?
    /// The issuer's authorization code, for approvals.
    public var authCode: String?
    /// The gateway's own response or reason code, as sent (e.g. Authorize.Net's reason code,
    /// NMI's `response_code`).
    public var responseCode: String?
    /// The gateway's human-readable response text.
    public var responseText: String?
    /// The address verification result code, as sent by the gateway.
    public var avsResult: String?
    /// The card-code (CVV) verification result code, as sent by the gateway.
    public var cvvResult: String?
    /// The id that refers to this transaction in later merchant-initiated charges of a stored card
    /// (Authorize.Net `networkTransId`; NMI's own transaction id, its `initial_transaction_id`).
    /// Never logged or shown unmasked (``NetworkTransactionID/masked(_:)``).
    public var networkTransactionID: String?

    /// Creates a result.
    public init(
        outcome: Outcome, transactionID: String? = nil, authCode: String? = nil, responseCode: String? = nil,
        responseText: String? = nil, avsResult: String? = nil, cvvResult: String? = nil, networkTransactionID: String? = nil
    ) {
        self.networkTransactionID = networkTransactionID
        self.outcome = outcome
        self.transactionID = transactionID
        self.authCode = authCode
        self.responseCode = responseCode
        self.responseText = responseText
        self.avsResult = avsResult
        self.cvvResult = cvvResult
    }

    /// A result with only an error outcome (nothing reached a gateway, or nothing came back).
    public static func error(_ code: String, retryable: Bool, text: String? = nil) -> GatewayResult {
        GatewayResult(outcome: .error(code: code, retryable: retryable), responseText: text)
    }

    /// A result with only an in-doubt outcome.
    public static func inDoubt(_ reason: String, text: String? = nil) -> GatewayResult {
        GatewayResult(outcome: .inDoubt(reason: reason), responseText: text)
    }

    /// `true` for ``Outcome/approved``.
    public var isApproved: Bool { outcome == .approved }

    /// The outcome and transaction id; gateway results never carry card data or credentials.
    public var description: String {
        var text = "GatewayResult(\(outcome)"
        if let transactionID { text += ", transactionID: \(transactionID)" }
        if let responseCode { text += ", responseCode: \(responseCode)" }
        return text + ")"
    }
}
