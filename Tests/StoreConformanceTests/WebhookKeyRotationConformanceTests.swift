import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `WebhookKeyStore` on the run's engine: after a rotation the old webhook key signs beside the new
/// one until the overlap ends, then only the new one does; the next rotation destroys the old key;
/// an overlap never outlasts one set earlier.
@Suite("Store conformance: webhook key rotation")
struct WebhookKeyRotationConformanceTests {
    static let now = Timestamp.parse("2027-03-02T09:00:00.000Z")!

    static func rotate(_ fixture: StoreFixture, to version: Int, at now: Date, until: Date) async throws {
        let next = try fixture.keyring.newKeyVersion(merchantID: fixture.merchantID, purpose: .webhook, version: version, now: now)
        try await fixture.store.rotateWebhookKey(
            next, previousSignUntil: until, now: now,
            audit: AuditEntry(merchantID: fixture.merchantID, actor: "test", action: "webhook.secret_rotated", objectType: "merchant", objectID: fixture.merchantID))
    }

    @Test func theOldKeySignsBesideTheNewOneUntilTheOverlapEndsAndIsDestroyedAtTheNextRotation() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        #expect(try await store.webhookSigningVersions(merchantID: fixture.merchantID, now: Self.now) == [1])
        try await Self.rotate(fixture, to: 2, at: Self.now, until: Self.now.addingTimeInterval(3600))
        #expect(try await store.webhookSigningVersions(merchantID: fixture.merchantID, now: Self.now) == [2, 1])
        #expect(try await store.webhookSigningVersions(merchantID: fixture.merchantID, now: Self.now.addingTimeInterval(3599)) == [2, 1])
        #expect(try await store.webhookSigningVersions(merchantID: fixture.merchantID, now: Self.now.addingTimeInterval(3600)) == [2])
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 1)?.wrapped != nil)

        let later = Self.now.addingTimeInterval(7200)
        try await Self.rotate(fixture, to: 3, at: later, until: later.addingTimeInterval(600))
        #expect(try await store.webhookSigningVersions(merchantID: fixture.merchantID, now: later) == [3, 2])
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 1)?.wrapped == nil, "dropped after its overlap")
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 2)?.wrapped != nil)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'webhook.secret_rotated'") == 2)
    }

    @Test func aSecondRotationNeverLengthensAnOverlapAndOtherPurposesAndMerchantsAreUntouched() async throws {
        let fixture = try await StoreFixture()
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        try await Self.rotate(fixture, to: 2, at: Self.now, until: Self.now.addingTimeInterval(600))
        try await Self.rotate(fixture, to: 3, at: Self.now, until: Self.now.addingTimeInterval(86_400))
        let inAnHour = Self.now.addingTimeInterval(3600)
        #expect(try await fixture.store.webhookSigningVersions(merchantID: fixture.merchantID, now: inAnHour) == [3, 2], "version 1 kept its 10 minutes")
        #expect(try await fixture.store.webhookSigningVersions(merchantID: other.id, now: inAnHour) == [1])
        #expect(try await fixture.store.wrappedKey(merchantID: fixture.merchantID, purpose: .data, version: nil)?.version == 1)
    }
}
