import Testing
@testable import VaultAPI
@testable import VaultApp

/// The failed-authentication limiter, on a clock the test moves.
@Suite struct FailedAuthenticationLimiterTests {
    @Test func anAddressMayFailTheLimitThenWaitsForTheBudgetToRefill() {
        let clock = ManualClock()
        let limiter = FailedAuthenticationLimiter(limit: 3, windowSeconds: 60, clock: clock.reading)
        for _ in 0..<3 { #expect(limiter.recordFailure(from: "192.0.2.1") == .unauthenticated) }
        #expect(limiter.recordFailure(from: "192.0.2.1") == .limited(retryAfterSeconds: 20))
        #expect(limiter.recordFailure(from: "192.0.2.2") == .unauthenticated, "another address has its own budget")
        clock.advance(by: .seconds(19))
        #expect(limiter.recordFailure(from: "192.0.2.1") == .limited(retryAfterSeconds: 1))
        clock.advance(by: .seconds(1))
        #expect(limiter.recordFailure(from: "192.0.2.1") == .unauthenticated)
        #expect(limiter.recordFailure(from: "192.0.2.1") == .limited(retryAfterSeconds: 20))
    }

    @Test func ipv6AddressesAreCountedPerSlash64() {
        let limiter = FailedAuthenticationLimiter(limit: 2, windowSeconds: 60, clock: ManualClock().reading)
        #expect(limiter.recordFailure(from: "2001:db8:1:2::1") == .unauthenticated)
        #expect(limiter.recordFailure(from: "2001:db8:1:2:ffff::9") == .unauthenticated)
        #expect(limiter.recordFailure(from: "2001:db8:1:2:abcd::7") != FailedAuthenticationLimiter.Decision.unauthenticated, "rotating within one /64 buys nothing")
        #expect(limiter.recordFailure(from: "2001:db8:1:3::1") == .unauthenticated)
    }

    @Test func ipv4ClientsOfADualStackListenerKeepTheirOwnBudgets() {
        let limiter = FailedAuthenticationLimiter(limit: 2, windowSeconds: 60, clock: ManualClock().reading)
        #expect(limiter.recordFailure(from: "::ffff:192.0.2.1") == .unauthenticated)
        #expect(limiter.recordFailure(from: "192.0.2.1") == .unauthenticated, "the mapped and the plain form are one address")
        #expect(limiter.recordFailure(from: "::ffff:192.0.2.1") != FailedAuthenticationLimiter.Decision.unauthenticated)
        #expect(limiter.recordFailure(from: "::ffff:198.51.100.7") == .unauthenticated, "another IPv4 client is not limited with the first")
    }

    @Test func memoryStaysBoundedWhenEveryFailureComesFromANewAddress() {
        let clock = ManualClock()
        let limiter = FailedAuthenticationLimiter(limit: 2, windowSeconds: 60, maxAddresses: 100, clock: clock.reading)
        for index in 0..<10_000 {
            _ = limiter.recordFailure(from: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)")
            if index % 1000 == 0 { clock.advance(by: .seconds(2)) }
        }
        #expect(limiter.trackedAddresses <= 101)
        // Addresses beyond the table share the overflow bucket, which is spent by now.
        #expect(limiter.recordFailure(from: "172.16.0.1") != FailedAuthenticationLimiter.Decision.unauthenticated)
        clock.advance(by: .seconds(120))
        #expect(limiter.recordFailure(from: "172.16.0.1") == .unauthenticated, "full buckets are forgotten, making room again")
    }
}
