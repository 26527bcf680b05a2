import Hummingbird
import NIOCore

/// A hostile gateway endpoint on loopback: answers every POST with a redirect to another
/// listener, as an attacker controlling (or squatting on) a gateway URL would, to collect the card
/// data and credentials a client that follows redirects re-sends there.
final class FakeRedirectingGateway: Sendable {
    let core = FakeGatewayCore()

    /// Starts a redirector answering `status` with `Location: <target><same path>`.
    static func start(status: Int, to target: String) async throws -> FakeRedirectingGateway {
        let fake = FakeRedirectingGateway()
        let router = Router()
        router.post("**") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            fake.core.record(FakeRecordedRequest(path: request.uri.path, contentType: request.headers[.contentType], body: Array(body.readableBytesView)))
            return Response(status: HTTPResponse.Status(code: status), headers: [.location: target + request.uri.path])
        }
        try await fake.core.start(router)
        return fake
    }

    var baseURL: String { core.baseURL }

    func stop() async { await core.stop() }
}

/// The attacker's collecting listener on loopback: records whatever arrives and answers as an
/// approving gateway would (NMI's form on NMI paths, Authorize.Net's JSON otherwise), so a
/// client that followed the redirect would also report the charge approved.
final class FakeCollectingListener: Sendable {
    let core = FakeGatewayCore()

    static let nmiApproval = "response=1&responsetext=SUCCESS&authcode=123456&transactionid=9999999999&avsresponse=N&cvvresponse=M"
        + "&orderid=&type=sale&response_code=100"
    static let authorizeNetApproval = #"{"transactionResponse":{"responseCode":"1","authCode":"ABC123","transId":"60000000001","#
        + #""messages":[{"code":"1","description":"This transaction has been approved."}]},"#
        + #""messages":{"resultCode":"Ok","message":[{"code":"I00001","text":"Successful."}]}}"#

    static func start() async throws -> FakeCollectingListener {
        let fake = FakeCollectingListener()
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            fake.core.record(FakeRecordedRequest(path: request.uri.path, contentType: request.headers[.contentType], body: Array(body.readableBytesView)))
            if request.uri.path.hasPrefix("/api/") {
                return FakeGatewayCore.response(Array(Self.nmiApproval.utf8), contentType: "text/plain")
            }
            return FakeGatewayCore.response(Array(Self.authorizeNetApproval.utf8), contentType: "application/json")
        }
        router.post("**", use: handler)
        router.get("**", use: handler)
        try await fake.core.start(router)
        return fake
    }

    var baseURL: String { core.baseURL }

    func stop() async { await core.stop() }
}
