import Hummingbird
import Synchronization

/// A fake NMI gateway on loopback: Direct Post (`/api/transact.php`, form in, form out) and the
/// Query API (`/api/query.php`, form in, XML out).
///
/// Strict like the real one: a wrong `security_key` is "Authentication Failed" (300), a card
/// number failing Luhn or an expiry that is not `MMYY` is rejected (300). Public test triggers:
/// an amount under 1.00 declines (200), CVV `999` matches (M, other CVVs N), address `888` with
/// zip `77777` matches AVS. Fake-only trigger: a whole amount that is an NMI result code
/// (202.00, 250.00, 420.00, ...) answers that code. Duplicates (same type, card, amount and
/// order id) answer "Duplicate transaction" (300).
final class FakeNMIServer: Sendable {
    static let securityKey = "fake6457Thfj624V5r7WUwc5v6a68Zsd"

    let core = FakeGatewayCore()
    let state = Mutex(FakeNMIState())

    /// Starts a fake on a loopback port (0: an ephemeral one).
    static func start(port: Int = 0) async throws -> FakeNMIServer {
        let fake = FakeNMIServer()
        let router = Router()
        router.post("/api/transact.php") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return await fake.transact(Array(body.readableBytesView), contentType: request.headers[.contentType])
        }
        router.post("/api/query.php") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return await fake.query(Array(body.readableBytesView), contentType: request.headers[.contentType])
        }
        try await fake.core.start(router, port: port)
        return fake
    }

    /// The base URL to configure the adapter with.
    var baseURL: String { core.baseURL }

    func stop() async { await core.stop() }

    /// Marks unsettled sales and captures settled (`complete`), so they can be refunded.
    func settleAll() {
        state.withLock { state in
            for id in state.transactions.keys where state.transactions[id]?.condition == "pendingsettlement" {
                state.transactions[id]?.condition = "complete"
            }
        }
    }

    /// Transactions created with an order id (duplicates and rejected requests create none).
    func transactions(orderID: String) -> [FakeNMITransaction] {
        state.withLock { $0.transactions.values.filter { $0.orderID == orderID }.sorted { $0.sequence < $1.sequence } }
    }

    /// A transaction by id.
    func transaction(_ id: String) -> FakeNMITransaction? {
        state.withLock { $0.transactions[id] }
    }

    /// The `type` of every Direct Post request received, in order.
    var receivedTypes: [String] {
        core.requests.filter { $0.path == "/api/transact.php" }.compactMap { FakeNMIForm.fields($0.text)["type"] }
    }

    // MARK: - Dispatch

    private func transact(_ body: [UInt8], contentType: String?) async -> Response {
        core.record(FakeRecordedRequest(path: "/api/transact.php", contentType: contentType, body: body))
        let quirk = core.takeQuirk(for: .transaction)
        switch quirk {
        case .garbage: return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case let .status(code): return FakeGatewayCore.htmlError(code)
        default: break
        }
        let fields = FakeNMIForm.fields(String(decoding: body, as: UTF8.self))
        let answer: FakeNMIReply
        if !(contentType ?? "").hasPrefix("application/x-www-form-urlencoded") {
            answer = .rejected("Invalid content type", type: fields["type"])
        } else if fields["security_key"] != Self.securityKey {
            answer = .rejected("Authentication Failed", type: fields["type"])
        } else {
            answer = state.withLock { process(fields, &$0) }
        }
        switch quirk {
        case .holdAfterProcessing:
            await core.hold()
        case .garbageAfterProcessing:
            return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case .stallBodyAfterProcessing:
            return core.stalledResponse(Array(answer.form.utf8), contentType: "text/html; charset=UTF-8")
        default:
            break
        }
        return FakeGatewayCore.response(Array(answer.form.utf8), contentType: "text/html; charset=UTF-8")
    }

    private func query(_ body: [UInt8], contentType: String?) async -> Response {
        core.record(FakeRecordedRequest(path: "/api/query.php", contentType: contentType, body: body))
        switch core.takeQuirk(for: .lookup) {
        case .garbage: return FakeGatewayCore.response(FakeGatewayCore.garbageBody, contentType: "text/html")
        case let .status(code): return FakeGatewayCore.htmlError(code)
        default: break
        }
        let fields = FakeNMIForm.fields(String(decoding: body, as: UTF8.self))
        guard fields["security_key"] == Self.securityKey else {
            return Self.xml("<nm_response><error_response>Invalid Security Key REFID:3000000001</error_response></nm_response>")
        }
        let matches = state.withLock { state in
            state.transactions.values.filter { transaction in
                if let id = fields["transaction_id"] { return transaction.transactionID == id }
                if let order = fields["order_id"] { return transaction.orderID == order }
                return true
            }.sorted { $0.sequence < $1.sequence }
        }
        return Self.xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<nm_response>\n"
            + matches.map(\.xml).joined() + "</nm_response>\n")
    }

    static func xml(_ text: String) -> Response {
        FakeGatewayCore.response(Array(text.utf8), contentType: "text/xml; charset=UTF-8")
    }
}

/// Form helpers for the fake (independent of the adapter's encoder).
enum FakeNMIForm {
    static func fields(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            if result[key] == nil { result[key] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return result
    }

    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: Swift.max(0, length - count)) + self
    }
}
