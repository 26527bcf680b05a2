import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import VaultAPI

/// `/readyz` says "not ready" while a dependency does not answer, at once instead of when the
/// dependency gives up (PostgreSQL down held it 52-76 s, saying nothing), and "ready" again as soon
/// as it answers.
@Suite struct ReadinessTests {
    /// A dependency that answers only once `answering` is set; until then it waits, as a pool
    /// waiting for a connection to a host that is down does, ignoring cancellation, and gives up
    /// after about a minute (`gaveUp`).
    final class Dependency: Sendable {
        let answering = Mutex(false)
        let gaveUp = Mutex(false)

        func check() async -> Bool {
            for _ in 0..<3_000 {
                if answering.withLock({ $0 }) { return true }
                // Not `Task.sleep`, which ends at once when the probe cancels the check: a pool
                // waiting for a connection does not.
                await withCheckedContinuation { waited in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { waited.resume() }
                }
            }
            gaveUp.withLock { $0 = true }
            return false
        }
    }

    @Test func aDatabaseThatDoesNotAnswerIsNotReadyAtOnceAndReadyWhenItAnswersAgain() async throws {
        let database = Dependency()
        let health = HealthController(
            databaseReachable: { await database.check() }, keysUsable: { true }, readinessLimit: .milliseconds(300))
        let router = Router(context: VaultRequestContext.self)
        health.addRoutes(to: router.group(""))
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                let gaveUp = database.gaveUp.withLock { $0 }
                #expect(!gaveUp, "the probe answered before the database gave up")
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains(#""database":"unavailable""#))
            }
            database.answering.withLock { $0 = true }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#""status":"ready""#))
            }
        }
    }
}
