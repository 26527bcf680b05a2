import NIOCore
import Testing
@testable import VaultAPI
@testable import VaultApp

/// The deadline rules of `ConnectionDeadlines`, on a made-up clock.
@Suite struct ConnectionDeadlinesTests {
    static let timeouts = ConnectionDeadlines.Timeouts(headerRead: .seconds(2), bodyRead: .seconds(3), idle: .seconds(5), linger: .seconds(1))
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    @Test func aNewConnectionHasTheIdleDeadline() {
        let deadlines = ConnectionDeadlines(timeouts: Self.timeouts, now: Self.start)
        #expect(deadlines.phase == .idle)
        #expect(deadlines.deadline == Self.at(5))
        #expect(!deadlines.isExpired(now: Self.at(4)))
        #expect(deadlines.isExpired(now: Self.at(5)))
    }

    @Test func theHeaderDeadlineCountsFromTheFirstByteAndMoreBytesDoNotExtendIt() {
        var deadlines = ConnectionDeadlines(timeouts: Self.timeouts, now: Self.start)
        deadlines.bytesArrived(now: Self.at(1))
        #expect(deadlines.phase == .readingHead)
        #expect(deadlines.deadline == Self.at(3))
        deadlines.bytesArrived(now: Self.at(2))
        #expect(deadlines.deadline == Self.at(3), "a trickled head must not buy time")
        #expect(deadlines.isExpired(now: Self.at(3)))
    }

    @Test func theBodyDeadlineCountsFromTheHeadAndEndsWithTheRequest() {
        var deadlines = ConnectionDeadlines(timeouts: Self.timeouts, now: Self.start)
        deadlines.bytesArrived(now: Self.at(0))
        deadlines.headRead(now: Self.at(1))
        #expect(deadlines.phase == .readingBody)
        #expect(deadlines.deadline == Self.at(4))
        deadlines.bytesArrived(now: Self.at(3))
        #expect(deadlines.deadline == Self.at(4), "a trickled body must not buy time")
        deadlines.endRead()
        #expect(deadlines.phase == .awaitingResponse)
        #expect(deadlines.deadline == nil, "the handler is bounded by the request timeout, not by these")
        #expect(!deadlines.nextResponseIsEarly)
        deadlines.responseEnded(early: false, now: Self.at(40))
        #expect(deadlines.phase == .idle)
        #expect(deadlines.deadline == Self.at(45))
    }

    @Test func anAnswerBeforeTheRequestEndsIsEarlyAndStartsTheLinger() {
        var deadlines = ConnectionDeadlines(timeouts: Self.timeouts, now: Self.start)
        deadlines.bytesArrived(now: Self.at(0))
        deadlines.headRead(now: Self.at(0))
        #expect(deadlines.nextResponseIsEarly)
        deadlines.responseEnded(early: true, now: Self.at(1))
        #expect(deadlines.phase == .lingering)
        #expect(deadlines.isDiscardingInput)
        #expect(deadlines.deadline == Self.at(2))
        deadlines.headRead(now: Self.at(1))
        #expect(deadlines.phase == .lingering, "nothing read after an early answer is a request")
    }

    @Test func aPipelinedRequestKeepsItsOwnDeadlineWhenTheFirstResponseEnds() {
        var deadlines = ConnectionDeadlines(timeouts: Self.timeouts, now: Self.start)
        deadlines.bytesArrived(now: Self.at(0))
        deadlines.headRead(now: Self.at(0))
        deadlines.endRead()
        deadlines.headRead(now: Self.at(1))
        #expect(!deadlines.nextResponseIsEarly, "the first response answers a complete request")
        deadlines.responseEnded(early: false, now: Self.at(2))
        #expect(deadlines.phase == .readingBody)
        #expect(deadlines.deadline == Self.at(4))
        #expect(deadlines.nextResponseIsEarly, "the second request has not ended")
    }
}
