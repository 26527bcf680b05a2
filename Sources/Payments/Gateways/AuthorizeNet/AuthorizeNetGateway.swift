public import AsyncHTTPClient
public import Logging
import Vault

/// The `authorizenet` adapter: Authorize.Net's JSON API over HTTPS.
///
/// One endpoint takes every request (`createTransactionRequest` and the reporting requests).
/// Exactly-once: every charge carries `order.invoiceNumber` (our reference) and a duplicate
/// window of 8 hours, so a resubmission is answered with error 11 and the original's id, which
/// the adapter reconciles (looks up) instead of charging again. A charge whose answer was lost
/// is in doubt and found later with ``lookup(reference:gatewayTransactionID:)``.
public struct AuthorizeNetGateway: GatewayAdapter, CustomStringConvertible, CustomReflectable {
    /// Production endpoint.
    public static let productionURL = "https://api.authorize.net/xml/v1/request.api"
    /// Sandbox (test account) endpoint.
    public static let sandboxURL = "https://apitest.authorize.net/xml/v1/request.api"
    /// The endpoint path, appended to a bare host given as an override.
    public static let endpointPath = "/xml/v1/request.api"

    /// Always `authorizenet`.
    public let name = "authorizenet"
    /// The endpoint URL requests are posted to.
    public let endpoint: String
    let requests: AuthorizeNetRequests
    let http: GatewayHTTP
    let logger: Logger

    /// Creates the adapter.
    /// - Parameters:
    ///   - apiLoginID: The merchant's API login id (credential `name`).
    ///   - transactionKey: The merchant's transaction key (credential `transactionKey`).
    ///   - endpoint: The full endpoint URL; production by default.
    ///   - httpClient: The shared HTTP client.
    ///   - timeout: Deadline of one HTTP exchange.
    ///   - logger: Where operations are logged (never with card data or credentials).
    public init(apiLoginID: String, transactionKey: String, endpoint: String = AuthorizeNetGateway.productionURL,
                httpClient: HTTPClient = GatewayRegistry.sharedClient, timeout: Duration = GatewayConfiguration.defaultTimeout,
                logger: Logger = Logger(label: "vault.gateway.authorizenet")) {
        self.endpoint = endpoint
        requests = AuthorizeNetRequests(credentials: AuthorizeNetCredentials(apiLoginID: apiLoginID,
                                                                             transactionKey: transactionKey))
        http = GatewayHTTP(client: httpClient, timeout: timeout)
        self.logger = logger
    }

    /// The endpoint only; never credentials.
    public var description: String { "AuthorizeNetGateway(endpoint: \(GatewayURL.redacted(endpoint)))" }

    /// A mirror without credentials.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "endpoint": GatewayURL.redacted(endpoint)], displayStyle: .struct)
    }

    /// `authCaptureTransaction`.
    public func sale(_ request: ChargeRequest) async -> GatewayResult {
        await charge(.authCapture, request, amount: request.amount, operation: "sale")
    }

    /// `authOnlyTransaction`.
    public func authorize(_ request: ChargeRequest) async -> GatewayResult {
        await charge(.authOnly, request, amount: request.amount, operation: "authorize")
    }

    /// `priorAuthCaptureTransaction`; without an amount the whole authorization is captured.
    public func capture(_ request: FollowUpRequest) async -> GatewayResult {
        if let invalid = invalidAmount(request.amount, required: false) { return invalid }
        if let invalid = invalidReference(request.reference) { return invalid }
        let body = requests.capture(request, refID: AuthorizeNetRequests.refID(forIdempotencyKey: request.idempotencyKey))
        return await transact(body, operation: "capture", reference: request.reference)
    }

    /// `voidTransaction`.
    public func void(_ request: FollowUpRequest) async -> GatewayResult {
        let body = requests.void(transactionID: request.gatewayTransactionID,
                                 refID: AuthorizeNetRequests.refID(forIdempotencyKey: request.idempotencyKey))
        return await transact(body, operation: "void", reference: request.reference)
    }

    /// `refundTransaction` of a settled transaction. Authorize.Net needs the amount and the
    /// card's last four digits: from the request's card or `cardLast4`, else read from the
    /// original transaction's details (`getTransactionDetailsRequest`).
    ///
    /// Refunding an unsettled transaction fails with `not_refundable` (reason 54): void it instead.
    public func refund(_ request: FollowUpRequest) async -> GatewayResult {
        guard let amount = request.amount else {
            return .error("amount_required", retryable: false, text: "Authorize.Net refunds need an amount.")
        }
        if let invalid = invalidAmount(amount, required: true) { return invalid }
        if let invalid = invalidReference(request.reference) { return invalid }
        var last4 = request.lastFourDigits
        if last4 == nil {
            switch await detailsRecord(transactionID: request.gatewayTransactionID) {
            case let .found(original):
                last4 = original.cardNumber.map { String($0.suffix(4)) }
            case .notFound:
                return .error("transaction_not_found", retryable: false)
            case let .unavailable(reason):
                return .error("gateway_unreachable", retryable: true, text: reason)
            }
        }
        guard let last4 else {
            return .error("card_required", retryable: false,
                          text: "Authorize.Net refunds need the last four digits of the original card.")
        }
        let body = requests.refund(request, amount: amount, last4: last4,
                                   refID: AuthorizeNetRequests.refID(forIdempotencyKey: request.idempotencyKey))
        return await transact(body, operation: "refund", reference: request.reference)
    }

    /// An `authOnlyTransaction` of the requested amount, or of one minor unit when it is zero,
    /// voided at once when approved.
    ///
    /// Authorize.Net's JSON API has no account-verification transaction type, and zero-amount
    /// authorizations are supported only by some processors and card brands (reason codes
    /// 289/290 otherwise), so a small authorization plus void works for every account. The
    /// authorization's result is returned; a failed void is logged (the hold then lapses).
    public func verify(_ request: ChargeRequest) async -> GatewayResult {
        let amount = request.amount.minorUnits > 0 ? request.amount : request.amount.oneMinorUnit
        let result = await charge(.authOnly, request, amount: amount, operation: "verify")
        guard result.isApproved, let transactionID = result.transactionID else { return result }
        let void = await self.void(FollowUpRequest(idempotencyKey: request.idempotencyKey + ":void",
                                                   reference: request.reference, gatewayTransactionID: transactionID))
        if !void.isApproved {
            logger.warning("verification authorization not voided", metadata: [
                "gateway": "\(name)", "reference": "\(request.reference)", "transactionID": "\(transactionID)",
                "outcome": "\(void.outcome)",
            ])
        }
        return result
    }

    // MARK: - Exchange

    func charge(_ type: AuthorizeNetRequests.TransactionType, _ request: ChargeRequest, amount: Money,
                        operation: String) async -> GatewayResult {
        if let refused = AuthorizeNetGateway.preChecks.refusal(for: request) {
            log(operation, reference: request.reference, refused)
            return refused
        }
        if let invalid = invalidAmount(amount, required: true) { return invalid }
        let body = requests.charge(type, request, amount: amount,
                                   refID: AuthorizeNetRequests.refID(forIdempotencyKey: request.idempotencyKey))
        return await transact(body, operation: operation, reference: request.reference)
    }

    /// Posts a `createTransactionRequest` and normalizes the answer, reconciling duplicates.
    private func transact(_ body: [UInt8], operation: String, reference: String) async -> GatewayResult {
        let exchange = await http.post(url: endpoint, contentType: "application/json", body: body)
        var result = interpret(exchange)
        if case let .duplicate(original) = result {
            result = .final(await reconcileDuplicate(original: original, reference: reference))
        }
        guard case let .final(final) = result else { return .inDoubt("duplicate_unresolved") }
        log(operation, reference: reference, final)
        return final
    }

    enum Interpretation {
        case final(GatewayResult)
        case duplicate(GatewayResult)
    }

    /// The normalized result of one `createTransactionRequest` exchange.
    func interpret(_ exchange: HTTPExchange) -> Interpretation {
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason):
            return .final(.error("gateway_unreachable", retryable: true, text: reason))
        case let .lost(reason):
            return .final(.inDoubt(reason))
        case let .response(status, bytes):
            guard status == 200 else { return .final(GatewayHTTP.unexpectedStatus(status)) }
            body = bytes
        }
        guard let reply = AuthorizeNetResponses.decode(AuthorizeNetResponses.CreateTransaction.self, from: body) else {
            return .final(.inDoubt("unreadable_response"))
        }
        guard let transaction = reply.transactionResponse, transaction.responseCode != nil else {
            let message = reply.messages?.message.first
            guard reply.messages?.resultCode == "Error" else { return .final(.inDoubt("unreadable_response")) }
            return .final(GatewayResult(outcome: AuthorizeNetCodes.apiErrorOutcome(message?.code),
                                        responseCode: message?.code, responseText: message?.text))
        }
        let transactionID = transaction.transId.flatMap { $0 == "0" ? nil : $0 }
        let result = GatewayResult(
            outcome: .approved, transactionID: transactionID, authCode: transaction.authCode,
            responseCode: transaction.reasonCode, responseText: transaction.reasonText,
            avsResult: transaction.avsResultCode, cvvResult: transaction.cvvResultCode,
            networkTransactionID: transaction.responseCode == "1" ? transaction.networkTransId : nil)
        if transaction.responseCode == "3", transaction.reasonCode == AuthorizeNetCodes.duplicate {
            return .duplicate(result)
        }
        guard let outcome = AuthorizeNetCodes.outcome(responseCode: transaction.responseCode,
                                                      reasonCode: transaction.reasonCode) else {
            return .final(.inDoubt("unreadable_response"))
        }
        var final = result
        final.outcome = outcome
        return .final(final)
    }

    /// Settles a duplicate: the original's details when its id came back, else a search by
    /// reference; never a second submission.
    private func reconcileDuplicate(original: GatewayResult, reference: String) async -> GatewayResult {
        logger.info("duplicate submission; reconciling with the original",
                    metadata: ["gateway": "\(name)", "reference": "\(reference)"])
        switch await lookup(reference: reference, gatewayTransactionID: original.transactionID) {
        case let .found(result):
            return result
        case .notFound, .unavailable:
            if let transactionID = original.transactionID, let authCode = original.authCode, !authCode.isEmpty {
                return GatewayResult(outcome: .approved, transactionID: transactionID, authCode: authCode,
                                     responseCode: original.responseCode, responseText: original.responseText,
                                     avsResult: original.avsResult, cvvResult: original.cvvResult)
            }
            return GatewayResult(outcome: .inDoubt(reason: "duplicate_unresolved"), transactionID: original.transactionID,
                                 responseCode: original.responseCode, responseText: original.responseText)
        }
    }

    private func invalidAmount(_ amount: Money?, required: Bool) -> GatewayResult? {
        guard let amount else { return required ? .error("amount_required", retryable: false) : nil }
        return amount.minorUnits > 0 ? nil : .error("invalid_amount", retryable: false, text: "The amount must be positive.")
    }

    private func invalidReference(_ reference: String) -> GatewayResult? {
        AuthorizeNetGateway.preChecks.refusal(reference: reference).map { .error($0.code, retryable: false, text: $0.message) }
    }

    func log(_ operation: String, reference: String, _ result: GatewayResult) {
        let level: Logger.Level = if case .inDoubt = result.outcome { .warning } else { .debug }
        logger.log(level: level, "gateway call", metadata: [
            "gateway": "\(name)", "operation": "\(operation)", "reference": "\(reference)",
            "outcome": "\(result.outcome)", "transactionID": "\(result.transactionID ?? "-")",
        ])
    }
}
