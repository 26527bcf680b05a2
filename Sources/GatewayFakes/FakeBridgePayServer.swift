import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// A fake BridgePay BridgeComm endpoint on loopback: SOAP 1.1 `ProcessRequest` on
/// `/PaymentService/RequestHandler.svc` (base64 XML `requestHeader` in, base64 XML response out).
///
/// Strict like the PayGuardian field rules: `User` 5-25 and `Password` 7-25 characters and equal to
/// the fake's (else `10024`), numeric merchant codes equal to the fake's, `InvoiceNum` required
/// and 1-12 letters or digits, `PaymentAccountNumber` 13-16 digits passing Luhn, `ExpirationDate`
/// `MMYY`, `Amount` digits only (implied cents) and at most 12 of them, `TransactionType`,
/// `TransIndustryType`, `AcctType`, `HolderType` from their value lists; a wrong content type or
/// SOAP action is a SOAP fault (HTTP 500), as WCF answers. Test amounts as BridgePay publishes
/// them ("Trigger Amounts"): 0.01-0.99 and 1.01-4.98 and 182.00-1999.99 denied (30032), 4.99
/// internal error (20002), 70.00-79.99 bad card number, 80.00-89.99 lost, 90.00-99.99 call for
/// authorization, 100.00-109.99 pick up, 110.00-119.99 bad CSC, 120.00-129.99 insufficient
/// funds, 130.00-139.99 network unavailable (30022), 150.00-159.99 partial approval; any other
/// amount approves. Duplicates: an approved, unvoided charge of the same type, card and amount
/// (any invoice) answers `30036`/`D09`; nothing overrides it (the official SDK has no such field).
/// Void and refund are both `TransactionType` `refund` (docs "Refunds & Voids"): unsettled, it
/// voids (one void per transaction, full or partial); settled, it refunds. Find (`023`) takes a
/// `GatewayTransID` or an `InvoiceNum`, as the guide's find request does.
final class FakeBridgePayServer: Sendable {
    static let username = "vaulttest"
    static let password = "57!sE@3Fm"
    static let merchantCode = "320000"
    static let merchantAccountCode = "320001"
    static let path = "/PaymentService/RequestHandler.svc"
    /// The credentials the fake accepts, by catalogue credential name.
    static let credentials = ["username": username, "password": password, "merchantCode": merchantCode,
                              "merchantAccountCode": merchantAccountCode]
    static let soapAction = "http://bridgepaynetsecuretx.com/requesthandler/IRequestHandler/ProcessRequest"

    let core = FakeGatewayCore()
    let state = Mutex(FakeBridgePayState())
    /// Where every charge is appended (`type`, invoice, gateway id, result code; tab-separated)
    /// before its answer is sent, for scripts that compare the gateway's view with the vault's.
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
    static func start(port: Int = 0, ledger: String? = nil) async throws -> FakeBridgePayServer {
        let fake = FakeBridgePayServer(ledgerPath: ledger)
        let router = Router()
        router.post(RouterPath(stringLiteral: path)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let action = request.headers[HTTPField.Name("SOAPAction")!]
            return await fake.handle(Array(body.readableBytesView), contentType: request.headers[.contentType], action: action)
        }
        try await fake.core.start(router, port: port)
        return fake
    }

    /// The endpoint to configure the adapter with.
    var endpoint: String { core.baseURL + Self.path }

    func stop() async {
        await core.stop()
        ledger.withLock { try? $0?.close() }
    }

    /// Appends the charges recorded since the last call to the ledger file (if any).
    private func writeLedger() {
        let lines = state.withLock { state -> [String] in
            defer { state.unwritten.removeAll() }
            return state.unwritten
        }
        guard !lines.isEmpty else { return }
        ledger.withLock { handle in
            handle?.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        }
    }

    /// Moves every open transaction into a settled batch (refunds then post as refunds, voids fail).
    func settleAll() {
        state.withLock { state in
            for id in state.transactions.keys where state.transactions[id]?.status == .open {
                state.transactions[id]?.status = .settled
            }
        }
    }

    /// The next transaction request (004, 012, 019) is answered with this `ResponseCode`
    /// without being processed (nothing recorded), e.g. `10054` (a refused field).
    func answerNext(_ responseCode: String, message: String = "E03 - Transaction data integrity validation error") {
        state.withLock { $0.scripted.append((responseCode, message)) }
    }

    /// The `ResponseCode` the fake answers to a decoded `requestHeader` document, without
    /// keeping anything it creates (a probe of the field rules).
    func responseCode(for document: String) -> String {
        var scratch = state.withLock { $0 }
        return process(FakeBridgePayXML.fields(document), &scratch).responseCode
    }

    /// Transactions recorded with an invoice number, in order.
    func transactions(invoice: String) -> [FakeBridgePayTransaction] {
        state.withLock { $0.transactions.values.filter { $0.invoice == invoice }.sorted { $0.sequence < $1.sequence } }
    }

    /// A transaction by gateway id.
    func transaction(_ id: String) -> FakeBridgePayTransaction? {
        state.withLock { $0.transactions[id] }
    }

    /// Every transaction recorded (approved and declined charges, voids, refunds), in order.
    var allTransactions: [FakeBridgePayTransaction] {
        state.withLock { $0.transactions.values.sorted { $0.sequence < $1.sequence } }
    }

    /// The decoded `requestHeader` documents received, in order.
    var receivedDocuments: [String] {
        core.requests.compactMap { FakeBridgePayXML.requestDocument(in: $0.text) }
    }

    /// `RequestType/TransactionType` of every request received (`004/sale`, `023/`), in order.
    var receivedTypes: [String] {
        receivedDocuments.map { document in
            let fields = FakeBridgePayXML.fields(document)
            return (fields["RequestType"] ?? "") + "/" + (fields["TransactionType"] ?? "")
        }
    }

    // MARK: - Dispatch

    private func handle(_ body: [UInt8], contentType: String?, action: String?) async -> Response {
        core.record(FakeRecordedRequest(path: Self.path, contentType: contentType, body: body))
        let text = String(decoding: body, as: UTF8.self)
        let document = FakeBridgePayXML.requestDocument(in: text)
        let fields = document.map(FakeBridgePayXML.fields) ?? [:]
        let isLookup = fields["RequestType"] == "023"
        let quirk = core.takeQuirk(for: isLookup ? .lookup : .transaction)
        switch quirk {
        case .garbage: return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case let .status(code): return FakeGatewayCore.htmlError(code)
        default: break
        }
        guard (contentType ?? "").hasPrefix("text/xml"), action?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) == Self.soapAction,
              document != nil else {
            return FakeGatewayCore.response(Array(FakeBridgePayXML.fault.utf8), contentType: "text/xml; charset=utf-8",
                                            status: .internalServerError)
        }
        let answer = state.withLock { process(fields, &$0) }
        writeLedger()
        let reply = Array(FakeBridgePayXML.envelope(answer.xml).utf8)
        switch quirk {
        case .holdAfterProcessing:
            await core.hold()
        case .garbageAfterProcessing:
            return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case .stallBodyAfterProcessing:
            return core.stalledResponse(reply, contentType: "text/xml; charset=utf-8")
        default:
            break
        }
        return FakeGatewayCore.response(reply, contentType: "text/xml; charset=utf-8")
    }
}

/// XML helpers of the fake, independent of the adapter's codec.
enum FakeBridgePayXML {
    /// The decoded `requestHeader` document inside a SOAP envelope's `requestMsg`.
    static func requestDocument(in envelope: String) -> String? {
        guard let open = envelope.range(of: "requestMsg>"), let close = envelope.range(of: "</", range: open.upperBound..<envelope.endIndex),
              let data = Data(base64Encoded: String(envelope[open.upperBound..<close.lowerBound])),
              let document = String(data: data, encoding: .utf8), document.hasPrefix("<requestHeader>") else { return nil }
        return document
    }

    /// Leaf elements `<Name>text</Name>` of a document by name (first wins), entities decoded.
    static func fields(_ document: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(document)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let end = rest.firstIndex(of: ">") else { break }
            let name = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
            guard !name.hasPrefix("/"), let next = rest.firstIndex(of: "<") else { continue }
            if rest[next...].hasPrefix("</\(name)>"), result[name] == nil {
                result[name] = unescape(String(rest[..<next]))
            }
        }
        return result
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A response document in a SOAP envelope, base64 as BridgeComm answers.
    static func envelope(_ document: String) -> String {
        "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><ProcessRequestResponse xmlns=\""
            + "http://bridgepaynetsecuretx.com/requesthandler\"><ProcessRequestResult>"
            + Data(document.utf8).base64EncodedString() + "</ProcessRequestResult></ProcessRequestResponse></s:Body></s:Envelope>"
    }

    /// The SOAP fault WCF answers to a request it cannot dispatch.
    static let fault = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><s:Fault>"
        + "<faultcode>a:ActionNotSupported</faultcode><faultstring>The message cannot be processed.</faultstring>"
        + "</s:Fault></s:Body></s:Envelope>"
}
