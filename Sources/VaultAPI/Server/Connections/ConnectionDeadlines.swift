import NIOCore

/// The deadline a connection is held to, from what it has read and written so far.
///
/// A connection is always in one phase, each with at most one deadline: `idle` (nothing of a
/// request yet) closes after the idle timeout; `readingHead` (bytes of a request arrived, its head
/// not complete) after the header-read timeout counted from the first byte; `readingBody` (head
/// read, end not) after the body-read timeout counted from the head; `awaitingResponse` (request
/// complete, the server is answering) has none, the request timeout bounds the handler; `lingering`
/// (the server answered before the request was complete) discards input until the linger timeout,
/// then closes. The deadline is never extended by activity within a phase, so a client trickling
/// one byte a second gains nothing.
///
/// A pure value driven by the channel handlers (``ConnectionGuardHandler``), so its rules are
/// tested without sockets or clocks.
struct ConnectionDeadlines {
    /// Where the connection is.
    enum Phase: Equatable {
        case idle, readingHead, readingBody, awaitingResponse, lingering
    }

    /// The timeouts.
    struct Timeouts: Sendable, Equatable {
        var headerRead: TimeAmount
        var bodyRead: TimeAmount
        var idle: TimeAmount
        /// How long input is read and discarded after an early answer before the connection is closed.
        var linger: TimeAmount
    }

    let timeouts: Timeouts
    private(set) var phase = Phase.idle
    /// When the connection is closed unless its phase changes first; nil: no deadline.
    private(set) var deadline: NIODeadline?
    private var requestsEnded = 0
    private var responsesEnded = 0

    /// A new connection, idle from `now`.
    init(timeouts: Timeouts, now: NIODeadline) {
        self.timeouts = timeouts
        self.deadline = now + timeouts.idle
    }

    /// Whether input is now thrown away (after an early answer).
    var isDiscardingInput: Bool { phase == .lingering }

    /// Bytes arrived: the first byte of a request starts its header-read deadline.
    mutating func bytesArrived(now: NIODeadline) {
        guard phase == .idle else { return }
        phase = .readingHead
        deadline = now + timeouts.headerRead
    }

    /// A request head was decoded: its body-read deadline starts.
    mutating func headRead(now: NIODeadline) {
        guard phase != .lingering else { return }
        phase = .readingBody
        deadline = now + timeouts.bodyRead
    }

    /// A request's end was decoded: the server's turn, no deadline.
    mutating func endRead() {
        requestsEnded += 1
        guard phase == .readingBody else { return }
        phase = .awaitingResponse
        deadline = nil
    }

    /// Whether the response about to be written answers a request not yet read to its end (so the
    /// connection must close after it: what follows in the stream is unread body, not a request).
    var nextResponseIsEarly: Bool { requestsEnded <= responsesEnded }

    /// A response was written to its end; `early` as ``nextResponseIsEarly`` said before its head.
    mutating func responseEnded(early: Bool, now: NIODeadline) {
        responsesEnded += 1
        if early {
            phase = .lingering
            deadline = now + timeouts.linger
        } else if phase == .awaitingResponse && responsesEnded == requestsEnded {
            phase = .idle
            deadline = now + timeouts.idle
        }
    }

    /// Whether the connection must be closed at `now`.
    func isExpired(now: NIODeadline) -> Bool {
        deadline.map { now >= $0 } ?? false
    }
}
