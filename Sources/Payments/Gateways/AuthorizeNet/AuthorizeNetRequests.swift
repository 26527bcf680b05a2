import Vault

/// Builds Authorize.Net JSON API requests with members in the XSD's element order.
///
/// The JSON API converts requests to XML and validates them against `AnetApiSchema.xsd`, whose
/// `sequence`s fix the order of elements; see `NOTES.md` for the orders used here.
struct AuthorizeNetRequests: Sendable {
    let credentials: AuthorizeNetCredentials

    /// Seconds within which a resubmission with the same card, amount, invoice number and
    /// billing data is rejected as a duplicate (error 11) instead of charged again; the maximum
    /// Authorize.Net allows (8 hours).
    static let duplicateWindowSeconds = 28_800
    /// Longest `order.invoiceNumber` (our reference).
    static let maximumInvoiceNumberLength = 20
    /// Page size for `getUnsettledTransactionListRequest` (the maximum).
    static let pageSize = 1_000

    /// The transaction types used.
    enum TransactionType: String {
        case authCapture = "authCaptureTransaction"
        case authOnly = "authOnlyTransaction"
        case priorAuthCapture = "priorAuthCaptureTransaction"
        case void = "voidTransaction"
        case refund = "refundTransaction"
    }

    // MARK: Transactions

    /// `authCaptureTransaction` or `authOnlyTransaction` with the full card, flagged for a stored
    /// card as `AnetApiSchema.xsd` orders it: `transactionSettings` (with `recurringBilling` for a
    /// recurring charge), then `processingOptions`, then `subsequentAuthInformation`.
    func charge(_ type: TransactionType, _ request: ChargeRequest, amount: Money, refID: String) -> [UInt8] {
        var transaction = OrderedJSONObject()
        transaction.add("transactionType", .string(type.rawValue))
        transaction.add("amount", .string(Self.amount(amount)))
        transaction.add("currencyCode", .string(amount.currency.code))
        var card = OrderedJSONObject()
        card.add("cardNumber", .string(request.card.pan.digits))
        card.add("expirationDate", .string(Self.expirationDate(request.card.expiry)))
        card.add("cardCode", string: request.card.cvv?.digits)
        transaction.add("payment", .object([("creditCard", card.json)]))
        transaction.add("order", object: order(request.reference, description: request.description))
        transaction.add("billTo", object: billTo(request.card))
        var settings = [Self.duplicateWindowSetting]
        if case .recurring = request.storedCredential { settings.append(Self.setting("recurringBilling", "true")) }
        transaction.add("transactionSettings", .object([("setting", .array(settings))]))
        if let use = request.storedCredential {
            transaction.add("processingOptions", object: Self.processingOptions(use))
            transaction.add("subsequentAuthInformation", object: Self.subsequentAuthInformation(use))
        }
        return createTransaction(transaction, refID: refID)
    }

    /// `processingOptions` (members in XSD order: isFirstRecurringPayment, isFirstSubsequentAuth,
    /// isSubsequentAuth, isStoredCredentials): the first use of a stored card starts the recurring
    /// series, a customer paying with the stored card sets isStoredCredentials, a scheduled charge
    /// is a subsequent (merchant-initiated) authorization, or the series' first payment when no
    /// original network transaction id is on file.
    static func processingOptions(_ use: StoredCredentialUse) -> OrderedJSONObject {
        var options = OrderedJSONObject()
        switch use {
        case .initial, .recurring(originalNetworkTransactionID: nil):
            options.add("isFirstRecurringPayment", .bool(true))
        case .customerInitiated:
            options.add("isStoredCredentials", .bool(true))
        case .recurring:
            options.add("isSubsequentAuth", .bool(true))
        }
        return options
    }

    /// `subsequentAuthInformation{originalNetworkTransId}` for a merchant-initiated charge with an
    /// original on file; empty (not sent) otherwise. No `reason`: the XSD's
    /// `merchantInitTransReasonEnum` (resubmission, delayedCharge, reauthorization, noShow) names
    /// industry-practice MITs, not recurring ones.
    static func subsequentAuthInformation(_ use: StoredCredentialUse) -> OrderedJSONObject {
        var information = OrderedJSONObject()
        if case let .recurring(original?) = use { information.add("originalNetworkTransId", .string(original)) }
        return information
    }

    /// `priorAuthCaptureTransaction` of an authorization.
    func capture(_ request: FollowUpRequest, refID: String) -> [UInt8] {
        var transaction = OrderedJSONObject()
        transaction.add("transactionType", .string(TransactionType.priorAuthCapture.rawValue))
        transaction.add("amount", string: request.amount.map(Self.amount))
        transaction.add("refTransId", .string(request.gatewayTransactionID))
        transaction.add("order", object: order(request.reference, description: nil))
        return createTransaction(transaction, refID: refID)
    }

    /// `voidTransaction` of an unsettled transaction.
    func void(transactionID: String, refID: String) -> [UInt8] {
        var transaction = OrderedJSONObject()
        transaction.add("transactionType", .string(TransactionType.void.rawValue))
        transaction.add("refTransId", .string(transactionID))
        return createTransaction(transaction, refID: refID)
    }

    /// `refundTransaction` of a settled transaction: the last four digits stand for the card and
    /// `XXXX` for its expiry.
    func refund(_ request: FollowUpRequest, amount: Money, last4: String, refID: String) -> [UInt8] {
        var transaction = OrderedJSONObject()
        transaction.add("transactionType", .string(TransactionType.refund.rawValue))
        transaction.add("amount", .string(Self.amount(amount)))
        transaction.add("currencyCode", .string(amount.currency.code))
        var card = OrderedJSONObject()
        card.add("cardNumber", .string(last4))
        card.add("expirationDate", .string("XXXX"))
        transaction.add("payment", .object([("creditCard", card.json)]))
        transaction.add("refTransId", .string(request.gatewayTransactionID))
        transaction.add("order", object: order(request.reference, description: nil))
        transaction.add("transactionSettings", .object([("setting", .array([Self.duplicateWindowSetting]))]))
        return createTransaction(transaction, refID: refID)
    }

    // MARK: Reporting

    /// `getUnsettledTransactionListRequest`, newest first, one page.
    func unsettledTransactions(page: Int) -> [UInt8] {
        var body = OrderedJSONObject()
        body.add("merchantAuthentication", merchantAuthentication)
        body.add("sorting", .object([("orderBy", .string("submitTimeUTC")), ("orderDescending", .bool(true))]))
        body.add("paging", .object([("limit", .string(String(Self.pageSize))), ("offset", .string(String(page)))]))
        return OrderedJSON.object([("getUnsettledTransactionListRequest", body.json)]).serialized()
    }

    /// `getTransactionDetailsRequest` for one transaction id.
    func transactionDetails(transactionID: String) -> [UInt8] {
        var body = OrderedJSONObject()
        body.add("merchantAuthentication", merchantAuthentication)
        body.add("transId", .string(transactionID))
        return OrderedJSON.object([("getTransactionDetailsRequest", body.json)]).serialized()
    }

    // MARK: Parts

    /// The `refId` echoed back: the idempotency key when it fits 20 characters, else its
    /// 16-hex-digit FNV-1a digest.
    static func refID(forIdempotencyKey key: String) -> String {
        key.utf8.count <= 20 && key.allSatisfy({ $0.isASCII }) ? key : StableHash.hex(key)
    }

    /// `YYYY-MM` (XSD `gYearMonth`), the documented expiry format.
    static func expirationDate(_ expiry: CardExpiry) -> String {
        String(expiry.year) + "-" + (expiry.month < 10 ? "0" : "") + String(expiry.month)
    }

    var merchantAuthentication: OrderedJSON {
        .object([("name", .string(credentials.apiLoginID)), ("transactionKey", .string(credentials.transactionKey))])
    }

    private static let duplicateWindowSetting = setting("duplicateWindow", String(duplicateWindowSeconds))

    private static func setting(_ name: String, _ value: String) -> OrderedJSON {
        .object([("settingName", .string(name)), ("settingValue", .string(value))])
    }

    /// The amount as Authorize.Net documents it: dollars and cents (``GatewayPreChecks/amountString(_:)``).
    static func amount(_ amount: Money) -> String {
        AuthorizeNetGateway.preChecks.amountString(amount)
    }

    private func createTransaction(_ transaction: OrderedJSONObject, refID: String) -> [UInt8] {
        var body = OrderedJSONObject()
        body.add("merchantAuthentication", merchantAuthentication)
        body.add("refId", .string(refID))
        body.add("transactionRequest", transaction.json)
        return OrderedJSON.object([("createTransactionRequest", body.json)]).serialized()
    }

    private func order(_ reference: String, description: String?) -> OrderedJSONObject {
        var order = OrderedJSONObject()
        order.add("invoiceNumber", .string(reference))
        order.add("description", string: description.map { Self.truncate($0, to: 255) })
        return order
    }

    private func billTo(_ card: PaymentCard) -> OrderedJSONObject {
        var billTo = OrderedJSONObject()
        if let name = card.holderName?.trimmingASCIISpaces(), !name.isEmpty {
            let words = name.split(separator: " ")
            if words.count > 1 {
                billTo.add("firstName", .string(Self.truncate(words.dropLast().joined(separator: " "), to: 50)))
                billTo.add("lastName", .string(Self.truncate(String(words[words.count - 1]), to: 50)))
            } else {
                billTo.add("lastName", .string(Self.truncate(name, to: 50)))
            }
        }
        if let zip = card.postalCode?.trimmingASCIISpaces(), !zip.isEmpty {
            billTo.add("zip", .string(Self.truncate(zip, to: 20)))
        }
        return billTo
    }

    static func truncate(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length))
    }
}
