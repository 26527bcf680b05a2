import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Ended capture sessions are deleted, with their sealed data, once past the retention, on the
/// run's engine: used (completed, failed) and expired ones; never one still open, however old.
@Suite("Store conformance: ended capture sessions are purged")
struct CaptureSessionPurgeConformanceTests {
    typealias Sessions = CaptureSessionConformanceTests

    @Test func usedAndExpiredSessionsPastTheRetentionAreDeletedAndOpenOnesAreKept() async throws {
        let fixture = try await StoreFixture()
        let service = Sessions.sessions(fixture, store: fixture.store, keyring: fixture.keyring)
        let now = Date()
        let longAgo = now.addingTimeInterval(-3 * 86_400)
        let card = CaptureSessionCard(secureCardReference: "sc_x", maskedNumber: "424242******4242", cardType: .visa)
        func create(_ reference: String, at: Date, lifetime: TimeInterval? = nil) async throws -> CaptureSession {
            let creating =
                if let lifetime {
                    CaptureSessionService(
                        store: fixture.store,
                        cards: SecureCardService(store: fixture.store, keyring: fixture.keyring, verifier: StoreFixture.NoVerification()),
                        keyring: fixture.keyring, lifetime: lifetime)
                } else {
                    service
                }
            return try await creating.create(Sessions.request(reference), merchant: fixture.merchant, actor: "apikey:k", now: at).session
        }
        func complete(_ session: CaptureSession, at: Date) async throws {
            #expect(try await fixture.store.applyCaptureSessionTransition(.claim(session, at: at)))
            #expect(try await fixture.store.applyCaptureSessionTransition(.complete(session, card: card, at: at)))
        }

        let completedLongAgo = try await create("completed-long-ago", at: longAgo)
        try await complete(completedLongAgo, at: longAgo)
        let failedLongAgo = try await create("failed-long-ago", at: longAgo)
        #expect(try await fixture.store.applyCaptureSessionTransition(.claim(failedLongAgo, at: longAgo)))
        #expect(try await fixture.store.applyCaptureSessionTransition(.release(failedLongAgo, final: true, reason: "test", at: longAgo)))
        let expiredLongAgo = try await create("expired-long-ago", at: longAgo)

        let expiredRecently = try await create("expired-recently", at: now.addingTimeInterval(-7200))
        let completedRecently = try await create("completed-recently", at: now.addingTimeInterval(-3600))
        try await complete(completedRecently, at: now.addingTimeInterval(-3600))
        let openNow = try await create("open-now", at: now)
        let oldButOpen = try await create("old-but-open", at: longAgo, lifetime: 30 * 86_400)

        let purge = CaptureSessionPurge(store: fixture.store, retentionHours: 24)
        #expect(try await purge.run(now: now, batchSize: 2) == 3)
        for gone in [completedLongAgo, failedLongAgo, expiredLongAgo] {
            #expect(try await fixture.store.captureSession(id: gone.id) == nil, "\(gone.merchantReference)")
        }
        for kept in [expiredRecently, completedRecently, openNow, oldButOpen] {
            #expect(try await fixture.store.captureSession(id: kept.id) != nil, "\(kept.merchantReference)")
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM capture_sessions") == 4, "the sealed details went with the rows")
        #expect(try await purge.run(now: now) == 0, "a second pass finds nothing")
        #expect(try await fixture.count("SELECT count(*) AS n FROM secure_cards") == 1, "no card is touched")
    }
}
