import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultAppTestSupport

/// A database that cannot be reached is a retryable 503 `database_unavailable` with `Retry-After`,
/// logged as a warning, not a 500 "unhandled error" that pages someone for each request.
@Suite struct DatabaseUnavailableTests {
    struct EngineError: StorageError {
        var isUniqueViolation: Bool { false }
        var isUnavailable: Bool
    }

    @Test func anUnreachableDatabaseIsA503ToRetryAndAnyOtherEngineErrorStaysA500() async throws {
        let unreachable = LimitsTests.timeoutApp(timerFires: false) { throw EngineError(isUnavailable: true) }
        try await unreachable.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .serviceUnavailable)
            #expect(response.error["code"] as? String == "database_unavailable")
            #expect(response.error["type"] as? String == "api_error")
            #expect(response.headers[.retryAfter] == "1")
        }
        let broken = LimitsTests.timeoutApp(timerFires: false) { throw EngineError(isUnavailable: false) }
        try await broken.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .internalServerError)
            #expect(response.error["code"] as? String == "internal_error")
        }
    }
}
