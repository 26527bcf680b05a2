import NIOCore
import Synchronization

/// The connections open on one listener, against its cap.
final class OpenConnections: Sendable {
    /// Connections served at once; the next one is refused.
    let limit: Int
    private let count = Atomic<Int>(0)

    /// A counter refusing connections beyond `limit`.
    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection; false when it is over the cap (it is counted anyway: release it when it closes).
    func admit() -> Bool {
        count.wrappingAdd(1, ordering: .relaxed).newValue <= limit
    }

    /// Forgets a closed connection.
    func release() {
        count.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Connections open now (refused ones until they are closed).
    var current: Int { count.load(ordering: .relaxed) }
}

/// What every connection of a listener is held to.
struct ConnectionPolicy: Sendable {
    /// Timeouts of ``ConnectionDeadlines``.
    var timeouts: ConnectionDeadlines.Timeouts
    /// The shared cap.
    var connections: OpenConnections
    /// Whether a refused connection is told so with a plain-HTTP 503 (not on a TLS listener, where
    /// plain bytes would be a protocol error: it is just closed).
    var answersRefusals: Bool
}

/// The first handler of every connection, below TLS and HTTP: counts the connection against the
/// cap (beyond it: a 503 and closed at once, so open descriptors stay bounded and the listener
/// keeps accepting), closes it when ``ConnectionDeadlines`` says so, and after an early answer
/// reads and throws away what the client still sends (so a client blocked writing its body sees
/// the answer and the end of the stream) until the linger timeout.
///
/// ``HTTPExchangeObserver``, above the HTTP decoder, reports requests and responses to it. Both run
/// on the channel's event loop; timers are rescheduled lazily (one wake-up per timeout period, not
/// one timer per request).
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Sent to a connection over the cap.
    static let refusal: ByteBuffer = {
        let body = #"{"error":{"type":"api_error","code":"too_many_connections","message":"The server is at its connection limit; retry later."}}"#
        return ByteBuffer(
            string: "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
    }()

    private let policy: ConnectionPolicy
    private var deadlines: ConnectionDeadlines?
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var counted = false

    init(policy: ConnectionPolicy) {
        self.policy = policy
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadlines?.isDiscardingInput == true { return }
        if deadlines?.phase == .idle {
            deadlines?.bytesArrived(now: .now())
            reschedule()
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // While discarding nobody above asks for more; keep the socket drained.
        if deadlines?.isDiscardingInput == true { context.read() }
        context.fireChannelReadComplete()
    }

    // MARK: Reports from HTTPExchangeObserver

    /// A request head was decoded.
    func headRead() {
        deadlines?.headRead(now: .now())
        reschedule()
    }

    /// A request's end was decoded.
    func endRead() {
        deadlines?.endRead()
    }

    /// Whether the response about to start answers a request whose body was not read to its end.
    var nextResponseIsEarly: Bool { deadlines?.nextResponseIsEarly ?? false }

    /// A response was written to its end; after an early one, input is discarded until the linger timeout.
    func responseEnded(early: Bool) {
        deadlines?.responseEnded(early: early, now: .now())
        reschedule()
        if early { context?.read() }
    }

    // MARK: Private

    private func start(context: ChannelHandlerContext) {
        guard deadlines == nil else { return }
        deadlines = ConnectionDeadlines(timeouts: policy.timeouts, now: .now())
        counted = true
        guard policy.connections.admit() else {
            if policy.answersRefusals { context.writeAndFlush(wrapInboundOut(Self.refusal), promise: nil) }
            context.close(promise: nil)
            return
        }
        reschedule()
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        if counted {
            counted = false
            policy.connections.release()
        }
    }

    /// Makes sure a timer fires no later than the current deadline (an earlier timer re-checks then).
    private func reschedule() {
        guard let context, let deadline = deadlines?.deadline else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard let context, let deadlines else { return }
        if deadlines.isExpired(now: .now()) {
            context.close(promise: nil)
        } else {
            reschedule()
        }
    }
}
