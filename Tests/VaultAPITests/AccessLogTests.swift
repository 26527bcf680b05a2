import Hummingbird
import Testing
@testable import VaultAPI

@Suite struct AccessLogTests {
    @Test(arguments: [
        (Duration.zero, "0.00"), (.microseconds(9_999), "9.99"), (.milliseconds(12) + .microseconds(70), "12.07"),
        (.milliseconds(5), "5.00"), (.seconds(3) + .microseconds(456_789), "3456.78"), (.nanoseconds(10_000), "0.01"),
    ])
    func durationsAreWrittenInMillisecondsWithTwoDecimals(elapsed: Duration, expected: String) {
        #expect(ErrorEnvelopeMiddleware<BasicRequestContext>.milliseconds(elapsed) == expected)
    }
}
