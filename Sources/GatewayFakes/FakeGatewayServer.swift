import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One request a fake gateway received, as bytes.
struct FakeRecordedRequest: Sendable {
    var path: String
    var contentType: String?
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A misbehaviour a fake applies to the next request of a kind, instead of its normal answer.
enum FakeQuirk: Sendable, Equatable {
    /// Process the request normally, then hold the answer until ``FakeGatewayCore/releaseHeldResponses()``
    /// (the client times out first: an in-doubt charge that did happen).
    case holdAfterProcessing
    /// Answer 200 with a body that is not the gateway's format (nothing processed).
    case garbage
    /// Process the request, then answer 200 with a body that is not the gateway's format.
    case garbageAfterProcessing
    /// Answer with this HTTP status and an HTML error page (nothing processed).
    case status(Int)
    /// Process the request, send the head and half the body, then hold the rest until
    /// ``FakeGatewayCore/releaseHeldResponses()``.
    case stallBodyAfterProcessing
}

/// What a quirk applies to.
enum FakeRequestKind: Sendable, Equatable {
    /// Charges and follow-ups.
    case transaction
    /// Reporting/query requests.
    case lookup
}

/// Shared machinery of the fake gateways: the HTTP server on 127.0.0.1 (port chosen by the
/// system), the request log, queued quirks and held responses.
final class FakeGatewayCore: Sendable {
    private struct State {
        var requests: [FakeRecordedRequest] = []
        var quirks: [(FakeRequestKind, FakeQuirk)] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let state = Mutex(State())
    private let server = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let portValue = Mutex(0)

    /// The port the server listens on.
    var port: Int { portValue.withLock { $0 } }
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `router` on `port` of 127.0.0.1 (0: chosen by the system) and returns
    /// once the port is known.
    func start(_ router: Router<BasicRequestContext>, port: Int = 0) async throws {
        var logger = Logger(label: "fake-gateway")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        // Stopped by a graceful shutdown of its service group: cancelling `app.run()` with
        // connections still queued trips NIO's NIOAsyncWriter deinit check.
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                continuation.finish()
                throw error
            }
        }
        server.withLock { $0 = (group, task) }
        for await port in ports {
            portValue.withLock { $0 = port }
        }
    }

    /// Stops the server (releasing held responses first).
    func stop() async {
        releaseHeldResponses()
        let running = server.withLock { server in
            defer { server = nil }
            return server
        }
        guard let (group, task) = running else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// Every request received, in order.
    var requests: [FakeRecordedRequest] { state.withLock { $0.requests } }

    func record(_ request: FakeRecordedRequest) {
        state.withLock { $0.requests.append(request) }
    }

    /// Queues a quirk for the next request of a kind.
    func enqueue(_ quirk: FakeQuirk, for kind: FakeRequestKind = .transaction) {
        state.withLock { $0.quirks.append((kind, quirk)) }
    }

    /// The next quirk for a kind, if one is queued.
    func takeQuirk(for kind: FakeRequestKind) -> FakeQuirk? {
        state.withLock { state in
            guard let index = state.quirks.firstIndex(where: { $0.0 == kind }) else { return nil }
            return state.quirks.remove(at: index).1
        }
    }

    /// Suspends until ``releaseHeldResponses()`` (at once if already released).
    func hold() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.released { return true }
                state.held.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Waits (up to 30 s) until `count` responses are being held, i.e. their requests were
    /// processed; an event to wait for instead of a time to guess.
    func waitUntilHolding(_ count: Int) async {
        for _ in 0..<3_000 {
            if state.withLock({ $0.held.count >= count }) { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Lets held responses go (and any later hold pass at once).
    func releaseHeldResponses() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// A response with a body and content type.
    static func response(_ body: [UInt8], contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The quirk responses that need no processing.
    static func htmlError(_ status: Int) -> Response {
        response(Array("<html><body><h1>\(status) Service Unavailable</h1></body></html>".utf8),
                 contentType: "text/html", status: HTTPResponse.Status(code: status))
    }

    /// A response that sends the first half of `body`, then waits for the release.
    func stalledResponse(_ body: [UInt8], contentType: String) -> Response {
        let half = body.count / 2
        return Response(status: .ok, headers: [.contentType: contentType],
                        body: ResponseBody(contentLength: body.count) { writer in
                            try await writer.write(ByteBuffer(bytes: body[..<half]))
                            await self.hold()
                            try await writer.write(ByteBuffer(bytes: body[half...]))
                            try await writer.finish(nil)
                        })
    }

    static let garbageBody = Array("<html><body>Gateway maintenance in progress</body></html>".utf8)
}
