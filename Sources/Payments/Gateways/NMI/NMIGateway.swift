public import AsyncHTTPClient
public import Logging
import Vault

/// The `nmi` adapter: NMI's Direct Post API (form POST to `/api/transact.php`) and, for
/// in-doubt resolution, its Query API (`/api/query.php`, XML replies).
///
/// Every charge carries `orderid` (our reference), by which a charge whose answer was lost is
/// found later with ``lookup(reference:gatewayTransactionID:)``. A duplicate reported by NMI
/// or the processor is reconciled with that lookup instead of being resent.
public struct NMIGateway: GatewayAdapter, CustomStringConvertible, CustomReflectable {
    /// NMI's default host.
    public static let defaultBaseURL = "https://secure.nmi.com"
    /// The Direct Post path.
    public static let transactPath = "/api/transact.php"
    /// The Query API path.
    public static let queryPath = "/api/query.php"

    /// Always `nmi`.
    public let name = "nmi"
    /// The base URL (scheme and host) both paths are appended to.
    public let baseURL: String
    let requests: NMIRequests
    let http: GatewayHTTP
    let logger: Logger
    /// The attempts this adapter has sent (a re-send keeps NMI's duplicate check on).
    let sentAttempts = NMISentAttempts()

    /// Creates the adapter.
    /// - Parameters:
    ///   - securityKey: The merchant's API security key (credential `security_key`).
    ///   - baseURL: Scheme and host; `https://secure.nmi.com` by default. A URL ending in
    ///     `/api/transact.php` is accepted too.
    ///   - httpClient: The shared HTTP client.
    ///   - timeout: Deadline of one HTTP exchange.
    ///   - logger: Where operations are logged (never with card data or credentials).
    public init(securityKey: String, baseURL: String = NMIGateway.defaultBaseURL, httpClient: HTTPClient = GatewayRegistry.sharedClient,
                timeout: Duration = GatewayConfiguration.defaultTimeout,
                logger: Logger = Logger(label: "vault.gateway.nmi")) {
        var base = baseURL.trimmingASCIISpaces()
        for suffix in [Self.transactPath, Self.queryPath, "/"] where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
        }
        self.baseURL = base
        requests = NMIRequests(credentials: NMICredentials(securityKey: securityKey))
        http = GatewayHTTP(client: httpClient, timeout: timeout)
        self.logger = logger
    }

    /// The base URL only; never the security key.
    public var description: String { "NMIGateway(baseURL: \(GatewayURL.redacted(baseURL)))" }

    /// A mirror without the security key.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "baseURL": GatewayURL.redacted(baseURL)], displayStyle: .struct)
    }

    /// `type=sale`.
    public func sale(_ request: ChargeRequest) async -> GatewayResult {
        if let refused = NMIGateway.preChecks.refusal(for: request) { return refused }
        guard request.amount.minorUnits > 0 else { return Self.invalidAmount }
        let resend = sentAttempts.markSent(idempotencyKey: request.idempotencyKey, reference: request.reference)
        return await transact(requests.charge(type: "sale", request, amount: request.amount, resend: resend), operation: "sale",
                              reference: request.reference, reconcile: true)
    }

    /// `type=auth`.
    public func authorize(_ request: ChargeRequest) async -> GatewayResult {
        if let refused = NMIGateway.preChecks.refusal(for: request) { return refused }
        guard request.amount.minorUnits > 0 else { return Self.invalidAmount }
        let resend = sentAttempts.markSent(idempotencyKey: request.idempotencyKey, reference: request.reference)
        return await transact(requests.charge(type: "auth", request, amount: request.amount, resend: resend), operation: "authorize",
                              reference: request.reference, reconcile: true)
    }

    /// `type=capture`; NMI needs the amount (at most the authorized amount).
    public func capture(_ request: FollowUpRequest) async -> GatewayResult {
        guard let amount = request.amount else { return .refused("amount_required", text: nil) }
        guard amount.minorUnits > 0 else { return Self.invalidAmount }
        return await transact(requests.followUp(type: "capture", request), operation: "capture",
                              reference: request.reference, reconcile: false)
    }

    /// `type=void`.
    public func void(_ request: FollowUpRequest) async -> GatewayResult {
        await transact(requests.followUp(type: "void", request), operation: "void", reference: request.reference,
                       reconcile: false)
    }

    /// `type=refund`; without an amount NMI refunds the whole settled amount.
    public func refund(_ request: FollowUpRequest) async -> GatewayResult {
        if let amount = request.amount, amount.minorUnits <= 0 { return Self.invalidAmount }
        return await transact(requests.followUp(type: "refund", request), operation: "refund",
                              reference: request.reference, reconcile: false)
    }

    /// `type=validate`: NMI's account verification, no amount, nothing held.
    public func verify(_ request: ChargeRequest) async -> GatewayResult {
        if let refused = NMIGateway.preChecks.refusal(for: request) { return refused }
        return await transact(requests.charge(type: "validate", request, amount: nil), operation: "verify",
                       reference: request.reference, reconcile: true)
    }

    static let invalidAmount = GatewayResult.refused("invalid_amount", text: "The amount must be positive.")

    var transactURL: String { baseURL + Self.transactPath }
    var queryURL: String { baseURL + Self.queryPath }

    func transact(_ body: [UInt8], operation: String, reference: String, reconcile: Bool) async -> GatewayResult {
        let exchange = await http.post(url: transactURL, contentType: "application/x-www-form-urlencoded", body: body)
        var result = Self.interpret(exchange)
        if reconcile, case .error = result.outcome,
           NMICodes.isDuplicate(responseCode: result.responseCode, responseText: result.responseText) {
            logger.info("duplicate submission; reconciling with the original",
                        metadata: ["gateway": "\(name)", "reference": "\(reference)"])
            if case let .found(original) = await lookup(reference: reference, gatewayTransactionID: nil) {
                result = original
            } else {
                // NMI holds a charge of this card and amount: evidence that money may have moved,
                // never a reason to send again. In doubt; a look-up that keeps missing it sends it to
                // review (`InDoubtPolicy`).
                result.outcome = .inDoubt(reason: InDoubtPolicy.duplicateAnswer)
            }
        }
        let level: Logger.Level = if case .inDoubt = result.outcome { .warning } else { .debug }
        logger.log(level: level, "gateway call", metadata: [
            "gateway": "\(name)", "operation": "\(operation)", "reference": "\(reference)",
            "outcome": "\(result.outcome)", "transactionID": "\(result.transactionID ?? "-")",
        ])
        return result
    }

    /// The normalized result of one Direct Post exchange.
    static func interpret(_ exchange: HTTPExchange) -> GatewayResult {
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason):
            return .error("gateway_unreachable", retryable: true, text: reason)
        case let .lost(reason):
            return .inDoubt(reason)
        case let .response(status, bytes, retryAfter):
            guard status == 200 else { return GatewayHTTP.unexpectedStatus(status, retryAfter: retryAfter) }
            body = bytes
        }
        var text = String(decoding: body, as: UTF8.self).trimmingASCIISpaces()
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        guard !text.contains("<"), !text.contains("\n") else { return .inDoubt("unreadable_response") }
        let fields = FormEncoding.decodeDictionary(text)
        let responseCode = fields["response_code"].flatMap { $0.isEmpty ? nil : $0 }
        func value(_ key: String) -> String? { fields[key].flatMap { $0.isEmpty ? nil : $0 } }
        guard let outcome = NMICodes.outcome(response: fields["response"], responseCode: responseCode,
                                             responseText: value("responsetext")) else {
            return .inDoubt("unreadable_response")
        }
        // NMI refers later merchant-initiated charges to the first use by its own transaction id.
        return GatewayResult(outcome: outcome, transactionID: value("transactionid"), authCode: value("authcode"),
                             responseCode: responseCode, responseText: value("responsetext"),
                             avsResult: value("avsresponse"), cvvResult: value("cvvresponse"),
                             networkTransactionID: outcome == .approved ? value("transactionid") : nil)
    }
}
