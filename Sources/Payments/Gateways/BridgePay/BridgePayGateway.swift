public import AsyncHTTPClient
import Foundation
public import Logging
import Vault

/// The `bridgepay` adapter: BridgePay's BridgeComm SOAP API (`ProcessRequest` on
/// `RequestHandler.svc`, a base64 XML `requestHeader` in, a base64 XML response out).
///
/// Charges are card-not-present e-commerce transactions (`TransIndustryType` `EC`) with the card
/// from the vault (`PaymentAccountNumber`, 13-16 digits; longer cards are declined here as
/// `unsupported_card` and never sent) and amounts in US cents. Every request's `TransactionID`
/// and every charge's `InvoiceNum` is ``BridgePayInvoiceNumber/of(_:)`` of our reference, so a
/// charge whose answer was lost is found with the find-transaction request
/// (``lookup(reference:gatewayTransactionID:)``). A duplicate answer is evidence that a charge
/// exists: it is looked up by invoice number, answered from our own earlier attempt when found,
/// and otherwise left in doubt. BridgePay's duplicate check is never overridden.
public struct BridgePayGateway: GatewayAdapter, CustomStringConvertible, CustomReflectable {
    /// Always `bridgepay`.
    public let name = "bridgepay"
    /// The `RequestHandler.svc` URL requests are posted to.
    public let endpoint: String
    let credentials: BridgePayCredentials
    let http: GatewayHTTP
    let logger: Logger
    let clock: @Sendable () -> Int64

    /// Creates the adapter.
    /// - Parameters:
    ///   - username: BridgePay user name (credential `username`), sent as `User`.
    ///   - password: Its password (credential `password`).
    ///   - merchantCode: The merchant code (credential `merchantCode`).
    ///   - merchantAccountCode: The merchant account code (credential `merchantAccountCode`).
    ///   - endpoint: The `RequestHandler.svc` URL; BridgePay production by default.
    ///   - httpClient: The shared HTTP client.
    ///   - timeout: Deadline of one HTTP exchange.
    ///   - logger: Where operations are logged (never with card data or credentials).
    ///   - clock: Seconds since 1970 for `RequestDateTime`; the system clock by default.
    public init(username: String, password: String, merchantCode: String, merchantAccountCode: String,
                endpoint: String = BridgePayWire.productionURL, httpClient: HTTPClient = GatewayRegistry.sharedClient,
                timeout: Duration = GatewayConfiguration.defaultTimeout,
                logger: Logger = Logger(label: "vault.gateway.bridgepay"),
                clock: (@Sendable () -> Int64)? = nil) {
        self.endpoint = endpoint.trimmingASCIISpaces()
        credentials = BridgePayCredentials(username: username, password: password, merchantCode: merchantCode,
                                           merchantAccountCode: merchantAccountCode)
        http = GatewayHTTP(client: httpClient, timeout: timeout)
        self.logger = logger
        self.clock = clock ?? Self.systemClock
    }

    /// Seconds since 1970 from the system clock.
    @Sendable static func systemClock() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The endpoint only; never a credential.
    public var description: String { "BridgePayGateway(endpoint: \(GatewayURL.redacted(endpoint)))" }

    /// A mirror without credentials.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "endpoint": GatewayURL.redacted(endpoint)], displayStyle: .struct)
    }

    /// `TransactionType` `sale`.
    public func sale(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, type: BridgePayWire.sale, operation: "sale", sendsAmount: true)
    }

    /// `TransactionType` `sale-auth`.
    public func authorize(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, type: BridgePayWire.saleAuth, operation: "authorize", sendsAmount: true)
    }

    /// Account verification: no amount, nothing held.
    public func verify(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, type: BridgePayWire.accountVerification, operation: "verify", sendsAmount: false)
    }

    /// Capture request (`019`) of a sale-auth; the amount is required.
    public func capture(_ request: FollowUpRequest) async -> GatewayResult {
        await followUp(request, requestType: BridgePayWire.capture, type: BridgePayWire.captureType, operation: "capture",
                       needsAmount: true)
    }

    /// Void/Refund request (`012`) with `TransactionType` `refund` and the amount to reverse:
    /// BridgePay voids a transaction still in an unsettled batch when asked to refund it, in full
    /// or in part (one void per transaction), and refunds it once settled.
    public func void(_ request: FollowUpRequest) async -> GatewayResult {
        await followUp(request, requestType: BridgePayWire.voidRefund, type: BridgePayWire.refund, operation: "void",
                       needsAmount: true)
    }

    /// BridgePay's documents allow a partial reversal: "If the transaction is in the current open
    /// (unsettled) batch, then only a single void (for the full amount or partial amount) may be
    /// performed"; ``void(_:)`` sends the request's amount.
    public var supportsPartialVoid: Bool { true }

    /// Void/Refund request (`012`) with `TransactionType` `refund`; the amount is required.
    public func refund(_ request: FollowUpRequest) async -> GatewayResult {
        await followUp(request, requestType: BridgePayWire.voidRefund, type: BridgePayWire.refund, operation: "refund",
                       needsAmount: true)
    }

    // MARK: - Charges

    private func charge(_ request: ChargeRequest, type: String, operation: String, sendsAmount: Bool) async -> GatewayResult {
        if let refused = Self.refusal(of: request, sendsAmount: sendsAmount) { return refused }
        let invoice = BridgePayInvoiceNumber.of(request.reference)
        let fields = Self.chargeFields(request, type: type, invoice: invoice, sendsAmount: sendsAmount)
        var result = await exchange(requestType: BridgePayWire.authorization, transactionID: invoice, fields: fields)
        if BridgePayCodes.isDuplicate(responseCode: result.responseCode, gatewayMessage: result.responseText) {
            // A duplicate answer says a charge of this card and amount exists. Only a positive
            // answer from the find request says it is ours; without one it stays in doubt (never
            // forced through, never called failed).
            if case let .found(original) = await lookup(reference: request.reference, gatewayTransactionID: nil) {
                logger.info("duplicate answer; our own earlier attempt found",
                            metadata: ["gateway": "\(name)", "reference": "\(request.reference)"])
                result = original
            } else {
                result.outcome = .inDoubt(reason: BridgePayCodes.duplicateInDoubt)
            }
        }
        log(operation, request.reference, result)
        return result
    }

    /// A result that refuses the request before sending, or `nil` when it may be sent.
    static func refusal(of request: ChargeRequest, sendsAmount: Bool) -> GatewayResult? {
        if let refusal = preChecks.refusal(cardNumber: request.card.pan) {
            return GatewayResult(outcome: .declined(code: refusal.code, category: .hard),
                                 responseText: "Declined by the vault: " + refusal.message)
        }
        guard sendsAmount else { return nil }
        return amountRefusal(request.amount)
    }

    /// A result refusing an amount BridgePay cannot take as documented, or `nil`.
    static func amountRefusal(_ amount: Money) -> GatewayResult? {
        if let refusal = preChecks.refusal(currency: amount.currency) {
            return .error(refusal.code, retryable: false, text: refusal.message)
        }
        guard amount.minorUnits > 0 else { return .error("invalid_amount", retryable: false, text: "The amount must be positive.") }
        guard String(amount.minorUnits).utf8.count <= BridgePayWire.amountMaximumLength else {
            return .error("invalid_amount", retryable: false, text: "The amount exceeds BridgePay's 12-character amount field.")
        }
        return nil
    }

    /// The `requestMessage` fields of a sale, sale-auth or verification, in wire order.
    static func chargeFields(_ request: ChargeRequest, type: String, invoice: String, sendsAmount: Bool) -> [(String, String)] {
        var fields: [(String, String)] = [("PaymentAccountNumber", request.card.pan.digits),
                                          ("ExpirationDate", request.card.expiry.mmyy)]
        if let cvv = request.card.cvv { fields.append(("SecurityCode", cvv.digits)) }
        if sendsAmount { fields.append(("Amount", String(request.amount.minorUnits))) }
        fields += [("TransactionType", type), ("TransIndustryType", BridgePayWire.ecommerce),
                   ("AcctType", BridgePayWire.creditAccount), ("HolderType", BridgePayWire.personalHolder),
                   ("InvoiceNum", invoice)]
        if let use = request.storedCredential, let value = BridgePayWire.storedCredentialValue(use) {
            fields.append((BridgePayWire.storedCredentialElement, value))
        }
        if let holder = request.card.holderName?.trimmingASCIISpaces(), !holder.isEmpty {
            fields.append(("AccountHolderName", String(holder.prefix(50))))
        }
        if let zip = request.card.postalCode?.filter({ $0 != "-" && $0 != " " }),
           zip.utf8.count == 5 || zip.utf8.count == 9, zip.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            fields.append(("AccountZip", zip))
        }
        return fields
    }

    // MARK: - Follow-ups

    private func followUp(_ request: FollowUpRequest, requestType: String, type: String, operation: String,
                          needsAmount: Bool) async -> GatewayResult {
        var fields: [(String, String)] = []
        if needsAmount {
            guard let amount = request.amount else { return .error("amount_required", retryable: false) }
            if let refused = Self.amountRefusal(amount) { return refused }
            fields.append(("Amount", String(amount.minorUnits)))
        }
        let invoice = BridgePayInvoiceNumber.of(request.reference)
        fields += [("TransactionType", type), ("ReferenceNumber", request.gatewayTransactionID), ("InvoiceNum", invoice)]
        let result = await exchange(requestType: requestType, transactionID: invoice, fields: fields)
        log(operation, request.reference, result)
        return result
    }

    // MARK: - Exchange

    /// Sends one request and reads its answer.
    func exchange(requestType: String, transactionID: String, fields: [(String, String)]) async -> GatewayResult {
        Self.interpret(await post(requestType: requestType, transactionID: transactionID, fields: fields))
    }

    /// Posts one request.
    func post(requestType: String, transactionID: String, fields: [(String, String)]) async -> HTTPExchange {
        let message = BridgePayMessage(transactionID: transactionID, requestType: requestType,
                                       requestDateTime: BridgePayMessage.requestDateTime(unixSeconds: clock()),
                                       credentials: credentials, fields: fields)
        return await http.post(url: endpoint, contentType: BridgePayWire.contentType,
                               headers: [("SOAPAction", "\"\(BridgePayWire.soapAction)\"")], body: message.body)
    }

    /// The normalized result of one exchange.
    static func interpret(_ exchange: HTTPExchange) -> GatewayResult {
        switch exchange {
        case let .notSent(reason):
            return .error("gateway_unreachable", retryable: true, text: reason)
        case let .lost(reason):
            return .inDoubt(reason)
        case let .response(status, body, retryAfter):
            guard status == 200 else { return GatewayHTTP.unexpectedStatus(status, retryAfter: retryAfter) }
            guard let reply = BridgePayReply.parse(body) else { return .inDoubt("unreadable_response") }
            return result(of: reply, responseCode: reply.responseCode)
        }
    }

    /// A reply's fields as a result, its outcome decided by `responseCode`.
    static func result(of reply: BridgePayReply, responseCode: String?) -> GatewayResult {
        let gatewayMessage = reply.value("GatewayMessage")
        let outcome = BridgePayCodes.outcome(responseCode: responseCode, gatewayMessage: gatewayMessage)
        return GatewayResult(
            outcome: outcome, transactionID: reply.value("GatewayTransID"), authCode: reply.value("AuthorizationCode"),
            responseCode: responseCode, responseText: gatewayMessage ?? reply.responseDescription,
            avsResult: reply.value("AVSResult"), cvvResult: reply.value("CVResult"),
            networkTransactionID: outcome == .approved ? reply.value(BridgePayWire.networkReferenceElement) : nil)
    }

    private func log(_ operation: String, _ reference: String, _ result: GatewayResult) {
        let level: Logger.Level = if case .inDoubt = result.outcome { .warning } else { .debug }
        logger.log(level: level, "gateway call", metadata: [
            "gateway": "\(name)", "operation": "\(operation)", "reference": "\(reference)",
            "outcome": "\(result.outcome)", "transactionID": "\(result.transactionID ?? "-")",
        ])
    }
}
