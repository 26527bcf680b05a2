import NIOCore

/// What every connection of a listener is held to.
struct ConnectionPolicy: Sendable {
    /// Timeouts of ``ConnectionDeadlines``.
    var timeouts: ConnectionDeadlines.Timeouts
    /// The shared caps (the listener's and each client address's).
    var connections: OpenConnections
    /// Whether a refused connection is told so with a plain-HTTP 503 or 429 (not on a TLS listener,
    /// where plain bytes would be a protocol error: it is just closed).
    var answersRefusals: Bool
}

/// The first handler of every connection, below TLS and HTTP: counts the connection against the
/// listener's cap (beyond it: a 503 and closed at once, so open descriptors stay bounded and the
/// listener keeps accepting) and its client address's cap (beyond it: a 429 and closed at once, so
/// one client opening connections and sending nothing, which no request limiter ever sees, cannot
/// take every slot), closes it when ``ConnectionDeadlines`` says so, and after an early answer
/// reads and throws away what the client still sends (so a client blocked writing its body sees
/// the answer and the end of the stream) until the linger timeout.
///
/// ``HTTPExchangeObserver``, above the HTTP decoder, reports requests and responses to it. Both run
/// on the channel's event loop; timers are rescheduled lazily (one wake-up per timeout period, not
/// one timer per request).
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Sent to a connection over the listener's cap.
    static let refusal = refusalResponse(
        status: "503 Service Unavailable",
        body: #"{"error":{"type":"api_error","code":"too_many_connections","message":"The server is at its connection limit; retry later."}}"#)

    /// Sent to a connection over its client address's cap.
    static let addressRefusal = refusalResponse(
        status: "429 Too Many Requests",
        body: #"{"error":{"type":"rate_limit_error","code":"too_many_connections_from_address","#
            + #""message":"This address holds as many connections as one client may; close one or retry later."}}"#)

    private static func refusalResponse(status: String, body: String) -> ByteBuffer {
        ByteBuffer(
            string: "HTTP/1.1 \(status)\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    private let policy: ConnectionPolicy
    private var deadlines: ConnectionDeadlines?
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    /// The slot this connection holds, released when it closes.
    private var slot: OpenConnections.Slot?

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
        let (slot, admission) = policy.connections.admit(address: context.channel.remoteAddress?.ipAddress ?? "-")
        self.slot = slot
        let refusal: ByteBuffer
        switch admission {
        case .admitted:
            reschedule()
            return
        case .overListenerCap: refusal = Self.refusal
        case .overAddressCap: refusal = Self.addressRefusal
        }
        if policy.answersRefusals { context.writeAndFlush(wrapInboundOut(refusal), promise: nil) }
        context.close(promise: nil)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        if let slot {
            self.slot = nil
            policy.connections.release(slot)
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
