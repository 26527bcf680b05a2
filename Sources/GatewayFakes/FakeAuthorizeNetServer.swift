import Foundation
import Hummingbird
import Synchronization

/// A fake Authorize.Net JSON API on loopback, strict where the real one is strict.
///
/// It rejects requests whose elements are out of XSD order or unknown (E00003), with wrong or
/// missing credentials (E00007), with bad amounts (5), card numbers (6) or expiry formats (7);
/// it prefixes every reply with a UTF-8 byte-order mark (switchable), applies the duplicate
/// window (error 11 with the original's details), and follows the sandbox's public test
/// triggers: zip 46282 declines; card code 900/901/904 give CVV M/N/P; card 4222222222222 with
/// a whole-dollar amount N answers reason code N (2, 4, 8, 19, 27, 44, 65, 252, 253).
/// It keeps transactions (capture, void, refund after ``settleAll()``), settles them into batches
/// (``settleBatch(at:)``), and answers `getUnsettledTransactionListRequest`,
/// `getSettledBatchListRequest`, `getTransactionListRequest` and `getTransactionDetailsRequest`
/// from them.
final class FakeAuthorizeNetServer: Sendable {
    static let apiLoginID = "fakeLogin9Z"
    static let transactionKey = "fAkEtRaNsKeY1234"
    static let path = "/xml/v1/request.api"

    let core = FakeGatewayCore()
    let state = Mutex(FakeAuthorizeNetState())
    /// Where every charge is appended (`transactionType`, invoice number, `transId`, response
    /// code; tab-separated) before its answer is sent, for scripts that compare the gateway's view
    /// with the vault's (scripts/crash-test.sh).
    let ledger: Mutex<FileHandle?>

    init(ledgerPath: String? = nil) {
        if let ledgerPath {
            _ = FileManager.default.createFile(atPath: ledgerPath, contents: nil)
            ledger = Mutex(FileHandle(forWritingAtPath: ledgerPath))
        } else {
            ledger = Mutex(nil)
        }
    }

    /// Starts a fake on a loopback port (0: an ephemeral one), appending charges to `ledger` when given.
    static func start(port: Int = 0, ledger: String? = nil) async throws -> FakeAuthorizeNetServer {
        let fake = FakeAuthorizeNetServer(ledgerPath: ledger)
        let router = Router()
        router.post("/xml/v1/request.api") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return await fake.handle(Array(body.readableBytesView), contentType: request.headers[.contentType])
        }
        try await fake.core.start(router, port: port)
        return fake
    }

    /// The endpoint URL.
    var url: String { core.baseURL + Self.path }

    /// Whether replies start with a byte-order mark (the real API's quirk); on by default.
    func setEmitsByteOrderMark(_ emits: Bool) {
        state.withLock { $0.emitsByteOrderMark = emits }
    }

    /// Settles a batch now: see ``settleBatch(at:)``.
    func settleAll() {
        settleBatch(at: Date())
    }

    /// Sets the merchant account's currency (USD by default); a transaction in another currency
    /// is refused with reason 39, as an Authorize.Net account takes only its own.
    func setAccountCurrency(_ code: String) {
        state.withLock { $0.accountCurrency = code }
    }

    /// Sets a transaction's reporting status as the gateway would move it (`expired` after 30 days
    /// uncaptured, `underReview`, `settlementError`, ...), for tests of look-ups.
    func setStatus(_ status: String, of id: String) {
        state.withLock { $0.transactions[id]?.status = status }
    }

    /// Transactions created (not counting duplicates and errors) with an invoice number.
    func transactions(invoiceNumber: String) -> [FakeAuthorizeNetTransaction] {
        state.withLock { $0.transactions.values.filter { $0.invoiceNumber == invoiceNumber }.sorted { $0.sequence < $1.sequence } }
    }

    /// A transaction by id.
    /// Charges (sales and authorizations) the fake recorded, approved or declined.
    var chargeCount: Int {
        state.withLock { $0.transactions.values.filter { ["authCaptureTransaction", "authOnlyTransaction"].contains($0.type) }.count }
    }

    func transaction(_ id: String) -> FakeAuthorizeNetTransaction? {
        state.withLock { $0.transactions[id] }
    }

    /// The `transactionType`s of every `createTransactionRequest` received, in order.
    var receivedTransactionTypes: [String] {
        core.requests.compactMap { FakeJSON.parse(Self.stripBOM($0.body))?["createTransactionRequest"]?["transactionRequest"]?["transactionType"]?.text }
    }

    func stop() async {
        await core.stop()
        ledger.withLock { try? $0?.close() }
    }

    /// Appends the charges recorded since the last call to the ledger file (if any); the write
    /// is a system call, done before the answer is sent.
    func writeLedger() {
        let lines = state.withLock { state -> [String] in
            defer { state.unwritten.removeAll() }
            return state.unwritten
        }
        guard !lines.isEmpty else { return }
        ledger.withLock { handle in
            handle?.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        }
    }

    // MARK: - Dispatch

    private func handle(_ body: [UInt8], contentType: String?) async -> Response {
        core.record(FakeRecordedRequest(path: Self.path, contentType: contentType, body: body))
        guard let json = FakeJSON.parse(Self.stripBOM(body)), json.keys.count == 1, let root = json.keys.first,
              let request = json[root] else {
            return reply(Self.apiError("E00003", "An error occurred while parsing the JSON request."))
        }
        let kind: FakeRequestKind = root == "createTransactionRequest" ? .transaction : .lookup
        let quirk = core.takeQuirk(for: kind)
        switch quirk {
        case .garbage: return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case let .status(code): return FakeGatewayCore.htmlError(code)
        case let .rateLimitedStatus(code, retryAfter): return FakeGatewayCore.rateLimited(code, retryAfter: retryAfter)
        default: break
        }
        if let problem = FakeAuthorizeNetSchema.validate(root: root, request) {
            return reply(Self.apiError("E00003", problem))
        }
        guard request["merchantAuthentication"]?["name"]?.text == Self.apiLoginID,
              request["merchantAuthentication"]?["transactionKey"]?.text == Self.transactionKey else {
            return reply(Self.apiError("E00007", "User authentication failed due to invalid authentication values."))
        }
        let answer: FakeJSON = switch root {
        case "createTransactionRequest": createTransaction(request)
        case "getUnsettledTransactionListRequest": unsettledList(request)
        case "getTransactionDetailsRequest": transactionDetails(request)
        case "getSettledBatchListRequest": settledBatchList(request)
        case "getTransactionListRequest": batchTransactionList(request)
        default: Self.apiError("E00003", "The element '\(root)' is not a supported request.")
        }
        switch quirk {
        case .holdAfterProcessing:
            await core.hold()
        case .garbageAfterProcessing:
            return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case .stallBodyAfterProcessing:
            return core.stalledResponse(replyBytes(answer), contentType: "application/json; charset=utf-8")
        default:
            break
        }
        return reply(answer)
    }

    private func reply(_ json: FakeJSON) -> Response {
        FakeGatewayCore.response(replyBytes(json), contentType: "application/json; charset=utf-8")
    }

    private func replyBytes(_ json: FakeJSON) -> [UInt8] {
        let bom: [UInt8] = state.withLock { $0.emitsByteOrderMark } ? [0xEF, 0xBB, 0xBF] : []
        return bom + Array(FakeJSONWriter.write(json).utf8)
    }

    static func apiError(_ code: String, _ text: String) -> FakeJSON {
        .object([("messages", .object([("resultCode", .string("Error")),
                                        ("message", .array([.object([("code", .string(code)), ("text", .string(text))])]))]))])
    }

    static func stripBOM(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }
}

/// One transaction the fake keeps.
struct FakeAuthorizeNetTransaction: Sendable {
    var transId: String
    var type: String
    var amount: Int
    var amountText: String
    var invoiceNumber: String?
    var last4: String
    var status: String
    var responseCode: String
    var reasonCode: String
    var reasonText: String
    var authCode: String
    var avs: String
    var cvv: String
    var captured = 0
    var refunded = 0
    var sequence: Int
    var refTransId: String?
    /// The `processingOptions` members sent `true`, in the order sent.
    var processingOptions: [String] = []
    /// `subsequentAuthInformation.originalNetworkTransId`, as sent.
    var originalNetworkTransId: String?
    /// The network transaction id the fake answered (approvals only).
    var networkTransId: String?
}

/// The fake's mutable state.
struct FakeAuthorizeNetState {
    var emitsByteOrderMark = true
    /// The merchant account's currency: a transaction in another is refused (reason 39).
    var accountCurrency = "USD"
    var nextTransactionID = 40_000_000_001
    var sequence = 0
    var transactions: [String: FakeAuthorizeNetTransaction] = [:]
    /// Transaction ids in the order they were created (the unsettled list reads it newest first
    /// instead of sorting every transaction per page: the crash test pages it thousands of times).
    var order: [String] = []
    var duplicates: [String: String] = [:]
    /// Settled batches, oldest first.
    var batches: [FakeAuthorizeNetBatch] = []
    /// The batch of each settled transaction.
    var batchOf: [String: String] = [:]
    var nextBatchID = 9_000_001
    /// Reporting requests made to fail, by root element, with how many are left.
    var failingReports: [String: Int] = [:]
    /// Charges recorded since the ledger was last written (type, invoice, id, response code).
    var unwritten: [String] = []

    mutating func newTransactionID() -> String {
        defer { nextTransactionID += 1 }
        return String(nextTransactionID)
    }

    /// Keeps a new transaction (and its place in ``order``).
    mutating func insert(_ transaction: FakeAuthorizeNetTransaction) {
        if transactions[transaction.transId] == nil { order.append(transaction.transId) }
        transactions[transaction.transId] = transaction
    }

    mutating func nextSequence() -> Int {
        sequence += 1
        return sequence
    }
}

/// The XSD element orders the fake enforces (from `AnetApiSchema.xsd`).
enum FakeAuthorizeNetSchema {
    static let orders: [String: [String]] = [
        "createTransactionRequest": ["merchantAuthentication", "clientId", "refId", "transactionRequest"],
        "getUnsettledTransactionListRequest": ["merchantAuthentication", "clientId", "refId", "status", "sorting", "paging"],
        "getTransactionDetailsRequest": ["merchantAuthentication", "clientId", "refId", "transId"],
        "getSettledBatchListRequest": ["merchantAuthentication", "clientId", "refId", "includeStatistics", "firstSettlementDate",
                                       "lastSettlementDate"],
        "getTransactionListRequest": ["merchantAuthentication", "clientId", "refId", "batchId", "sorting", "paging"],
        "merchantAuthentication": ["name", "transactionKey", "sessionToken", "password", "impersonationAuthentication",
                                   "fingerPrint", "clientKey", "accessToken", "mobileDeviceId"],
        "transactionRequest": ["transactionType", "amount", "currencyCode", "payment", "profile", "solution", "callId",
                               "terminalNumber", "authCode", "refTransId", "splitTenderId", "order", "lineItems", "tax",
                               "duty", "shipping", "taxExempt", "poNumber", "customer", "billTo", "shipTo", "customerIP",
                               "cardholderAuthentication", "retail", "employeeId", "transactionSettings", "userFields",
                               "surcharge", "merchantDescriptor", "subMerchant", "tip", "processingOptions",
                               "subsequentAuthInformation", "otherTax", "shipFrom", "authorizationIndicatorType"],
        "payment": ["creditCard", "bankAccount", "trackData", "encryptedTrackData", "payPal", "opaqueData", "emv"],
        "creditCard": ["cardNumber", "expirationDate", "cardCode", "isPaymentToken", "cryptogram"],
        "order": ["invoiceNumber", "description"],
        "billTo": ["firstName", "lastName", "company", "address", "city", "state", "zip", "country", "phoneNumber",
                   "faxNumber", "email"],
        "transactionSettings": ["setting"],
        "setting": ["settingName", "settingValue"],
        "sorting": ["orderBy", "orderDescending"],
        "paging": ["limit", "offset"],
        "processingOptions": ["isFirstRecurringPayment", "isFirstSubsequentAuth", "isSubsequentAuth", "isStoredCredentials"],
        "subsequentAuthInformation": ["originalNetworkTransId", "originalAuthAmount", "reason"],
    ]

    /// Simple-type facets of the XSD the fake enforces, by element name (the real API answers a
    /// violation with E00003 before processing anything).
    static func facetProblem(_ name: String, _ value: FakeJSON) -> String? {
        let text = value.text ?? ""
        let valid: Bool = switch name {
        // creditCardSimpleType.cardNumber: minLength 4, maxLength 16.
        case "cardNumber": (4...16).contains(text.count)
        // orderType.invoiceNumber: maxLength 20.
        case "invoiceNumber": text.count <= 20
        // processingOptions members: xs:boolean.
        case "isFirstRecurringPayment", "isFirstSubsequentAuth", "isSubsequentAuth", "isStoredCredentials":
            ["true", "false", "1", "0"].contains(text)
        // networkTransId: alphaNumericSpaceString, maxLength 255.
        case "originalNetworkTransId": text.count <= 255 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }
        // merchantInitTransReasonEnum.
        case "reason": ["resubmission", "delayedCharge", "reauthorization", "noShow"].contains(text)
        default: true
        }
        return valid ? nil : "The '\(name)' element is invalid - The value '\(name == "cardNumber" ? "XXXX" : text)' is invalid according to its datatype."
    }

    /// Required members.
    static let required: [String: [String]] = [
        "createTransactionRequest": ["merchantAuthentication", "transactionRequest"],
        "getUnsettledTransactionListRequest": ["merchantAuthentication"],
        "getTransactionDetailsRequest": ["merchantAuthentication", "transId"],
        "getTransactionListRequest": ["merchantAuthentication", "batchId"],
        "transactionRequest": ["transactionType"],
        "creditCard": ["cardNumber", "expirationDate"],
    ]

    /// Length facets of string elements (AnetApiSchema.xsd: `creditCardSimpleType.cardNumber`
    /// 4-16, `orderType.invoiceNumber` at most 20, `refId` at most 20, `description` at most 255).
    static let lengths: [String: ClosedRange<Int>] = [
        "cardNumber": 4...16, "invoiceNumber": 0...20, "refId": 0...20, "description": 0...255,
    ]

    /// The first schema violation, worded like the real API's E00003, or `nil`.
    static func validate(root: String, _ value: FakeJSON) -> String? {
        guard orders[root] != nil else { return "The element '\(root)' is not a known request." }
        return check(name: root, value)
    }

    private static func check(name: String, _ value: FakeJSON) -> String? {
        switch value {
        case let .array(elements):
            for element in elements {
                if let problem = check(name: name, element) { return problem }
            }
            return nil
        case let .object(members):
            guard let order = orders[name] else { return nil }
            var last = -1
            for (key, member) in members {
                guard let position = order.firstIndex(of: key), position > last else {
                    return "The element '\(name)' in namespace 'AnetApi/xml/v1/schema/AnetApiSchema.xsd' has invalid "
                        + "child element '\(key)' in namespace 'AnetApi/xml/v1/schema/AnetApiSchema.xsd'."
                }
                last = position
                if let problem = check(name: key, member) { return problem }
            }
            for key in required[name] ?? [] where !members.contains(where: { $0.0 == key }) {
                return "The element '\(name)' in namespace 'AnetApi/xml/v1/schema/AnetApiSchema.xsd' has incomplete "
                    + "content. List of possible elements expected: '\(key)'."
            }
            return nil
        case let .string(text):
            guard let range = lengths[name], !range.contains(text.count) else { return facetProblem(name, value) }
            // The real message quotes the value; the fake does not (it may be a card number).
            return "The 'AnetApi/xml/v1/schema/AnetApiSchema.xsd:\(name)' element is invalid - The value is invalid "
                + "according to its datatype 'String' - The actual length is "
                + (text.count > range.upperBound ? "greater than the MaxLength value." : "less than the MinLength value.")
        default:
            return facetProblem(name, value)
        }
    }
}
