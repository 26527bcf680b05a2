import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault

/// A data-key rotation re-seals capture sessions' customer details on the run's engine: a session
/// is found for re-sealing only while sealed under an older data key, its details are replaced only
/// if unchanged since read, and a session still open after the superseded key is destroyed
/// registers its card with the customer it was created with.
@Suite("Store conformance: capture sessions are re-sealed at data-key rotation")
struct CaptureSessionResealConformanceTests {
    typealias Sessions = CaptureSessionConformanceTests

    @Test func anOpenSessionReSealedAtRotationRegistersItsCardAfterTheOldKeyIsDestroyed() async throws {
        let fixture = try await StoreFixture()
        let service = Sessions.sessions(fixture, store: fixture.store, keyring: fixture.keyring)
        let (session, secret) = try await service.create(Sessions.request("cap-rotated"), merchant: fixture.merchant, actor: "apikey:k")
        let merchantID = fixture.merchantID
        #expect(try await fixture.store.captureSessionsToReseal(merchantID: merchantID, belowKeyVersion: 1, limit: 10).isEmpty)

        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchantID, actor: "test") == 2)
        let due = try await fixture.store.captureSessionsToReseal(merchantID: merchantID, belowKeyVersion: 2, limit: 10)
        #expect(due.map(\.session.id) == [session.id] && due.first?.keyVersion == 1)
        #expect(try await fixture.store.captureSessionsToReseal(merchantID: "mer_other", belowKeyVersion: 2, limit: 10).isEmpty)
        #expect(try await !fixture.store.resealCaptureSessionDetails(id: session.id, old: [1, 2, 3], new: [4, 5, 6], keyVersion: 2))

        let reseal = CaptureSessionReseal(store: fixture.store, keyring: fixture.keyring)
        #expect(try await reseal.resealAll(merchantID: merchantID) == 1)
        #expect(try await reseal.resealAll(merchantID: merchantID) == 0)
        let stored = try #require(try await fixture.store.captureSession(id: session.id))
        #expect(stored.keyVersion == 2 && Keyring.keyVersion(ofSealedRecord: stored.sealedDetails) == 2)
        #expect(stored.session == session, "nothing but the sealed details changes")

        // The fixture's card is the only other record under the old key.
        _ = try await fixture.cards.resealAll(merchantID: merchantID)
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: merchantID, actor: "test") == [1])
        let admitted = try await service.admit(clientSecret: secret, sessionID: session.id)
        let card = try await service.submit(admitted, source: Sessions.keyed("4242424242424242"))
        let registered = try await fixture.cards.retrieve(reference: card.secureCardReference, merchant: fixture.merchant)
        #expect(registered.customer?.email == "ada@example.com")
    }
}
