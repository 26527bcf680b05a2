import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Webhook key rotation on the run's engine: after a rotation the old webhook key signs beside the
/// new one until the overlap ends, then only the new one does; the next rotation destroys the old key;
/// an overlap never outlasts one set earlier. Each window is decided and bound by the domain
/// (`WebhookSecretRotation`, `WebhookSigningWindowBinding`); the store only keeps it.
@Suite("Store conformance: webhook key rotation")
struct WebhookKeyRotationConformanceTests {
    static let now = Timestamp.parse("2027-03-02T09:00:00.000Z")!

    static func rotate(_ fixture: StoreFixture, merchantID: String? = nil, at now: Date, overlap: TimeInterval) async throws {
        _ = try await WebhookSecretRotation(store: fixture.store, keyring: fixture.keyring).rotate(
            merchantID: merchantID ?? fixture.merchantID, overlap: overlap, actor: "test", now: now)
    }

    /// The versions that sign a delivery at `now`, as the webhook deliverer picks them.
    static func signing(_ fixture: StoreFixture, merchantID: String? = nil, at now: Date) async throws -> [Int] {
        let windows = try await fixture.store.webhookSigningWindows(merchantID: merchantID ?? fixture.merchantID)
        return await WebhookSigningWindowBinding(keyring: fixture.keyring).signingVersions(windows, now: now)
    }

    @Test func theOldKeySignsBesideTheNewOneUntilTheOverlapEndsAndIsDestroyedAtTheNextRotation() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        #expect(try await Self.signing(fixture, at: Self.now) == [1])
        try await Self.rotate(fixture, at: Self.now, overlap: 3600)
        #expect(try await Self.signing(fixture, at: Self.now) == [2, 1])
        #expect(try await Self.signing(fixture, at: Self.now.addingTimeInterval(3599)) == [2, 1])
        #expect(try await Self.signing(fixture, at: Self.now.addingTimeInterval(3600)) == [2])
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 1)?.wrapped != nil)

        let later = Self.now.addingTimeInterval(7200)
        try await Self.rotate(fixture, at: later, overlap: 600)
        #expect(try await Self.signing(fixture, at: later) == [3, 2])
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 1)?.wrapped == nil, "dropped after its overlap")
        #expect(try await store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 2)?.wrapped != nil)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'webhook.secret_rotated'") == 2)
    }

    @Test func aSecondRotationNeverLengthensAnOverlapAndOtherPurposesAndMerchantsAreUntouched() async throws {
        let fixture = try await StoreFixture()
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        try await Self.rotate(fixture, at: Self.now, overlap: 600)
        try await Self.rotate(fixture, at: Self.now, overlap: 86_400)
        let inAnHour = Self.now.addingTimeInterval(3600)
        #expect(try await Self.signing(fixture, at: inAnHour) == [3, 2], "version 1 kept its 10 minutes")
        #expect(try await Self.signing(fixture, merchantID: other.id, at: inAnHour) == [1])
        #expect(try await fixture.store.wrappedKey(merchantID: fixture.merchantID, purpose: .data, version: nil)?.wrapped != nil)
        #expect(try await fixture.store.wrappedKey(merchantID: fixture.merchantID, purpose: .data, version: nil)?.version == 1)
    }

    @Test func aWindowRaisedInTheDatabaseSignsNothingIsReportedAndIsDestroyedAtTheNextRotation() async throws {
        let fixture = try await StoreFixture()
        try await Self.rotate(fixture, at: Self.now, overlap: 3600)
        let afterOverlap = Self.now.addingTimeInterval(7200)
        #expect(try await Self.signing(fixture, at: afterOverlap) == [2])
        let intact = try await BoundRowCheck(store: fixture.store, keyring: fixture.keyring).run()
        #expect(intact.isIntact && intact.checked["webhook_signing_windows"] == 1)

        // Someone with SQL write access keeps the retired secret signing for years.
        try await fixture.sql.run(
            """
            UPDATE merchant_keys SET signs_until = '2099-01-01T00:00:00.000Z'
            WHERE merchant_id = \(fixture.merchantID) AND purpose = 'webhook' AND version = 1
            """)
        #expect(try await Self.signing(fixture, at: afterOverlap) == [2], "the raised window signs nothing")
        #expect(try await fixture.keyring.webhookSigningKeys(merchantID: fixture.merchantID, now: afterOverlap).count == 1)
        let report = try await BoundRowCheck(store: fixture.store, keyring: fixture.keyring).run()
        #expect(report.tampered == ["webhook_signing_windows": ["\(fixture.merchantID)/webhook/1"]])

        // Nor does a window set on a key that had none, or stripped of its binding.
        try await fixture.sql.run(
            """
            UPDATE merchant_keys SET signs_until = '2099-01-01T00:00:00.000Z', signs_until_binding = NULL
            WHERE merchant_id = \(fixture.merchantID) AND purpose = 'webhook' AND version = 1
            """)
        #expect(try await Self.signing(fixture, at: afterOverlap) == [2])

        // The next rotation destroys it, whatever its window says; the new windows are intact.
        try await Self.rotate(fixture, at: afterOverlap, overlap: 600)
        #expect(try await fixture.store.wrappedKey(merchantID: fixture.merchantID, purpose: .webhook, version: 1)?.wrapped == nil)
        #expect(try await Self.signing(fixture, at: afterOverlap) == [3, 2])
        #expect(try await BoundRowCheck(store: fixture.store, keyring: fixture.keyring).run().isIntact)
    }

    /// A merchant as an earlier build created it: a `merchant.created` event that says nothing of
    /// bound webhook windows.
    static func merchantOfAnEarlierBuild(_ fixture: StoreFixture) async throws -> String {
        let now = Date()
        let merchant = Merchant(
            id: OpaqueToken.make(prefix: "mer_", randomBits: 80), sequence: 0, name: "earlier", status: .active,
            gateway: GatewaySettings(name: "sandbox"), timeZone: "UTC", callbackURL: nil, verifyOnRegistration: false, createdAt: now, updatedAt: now)
        let keys = try fixture.keyring.newMerchantKeys(merchantID: merchant.id, now: now)
        let fingerprint = try keys.first { $0.purpose == .fingerprint }.map(fixture.keyring.unwrap)
        let apiKey = try await APIKeyBinding(keyring: fixture.keyring).issue(
            merchantID: merchant.id, role: .admin, now: now, fingerprintKey: fingerprint)
        _ = try await fixture.store.createMerchant(
            merchant, keys: keys, sealedGatewayCredentials: nil, apiKey: apiKey,
            audit: AuditEntry(merchantID: merchant.id, actor: "cli", action: "merchant.created", objectType: "merchant", objectID: merchant.id,
                              details: ["name": "earlier", "apiKey": apiKey.record.id, "role": "admin", "apiKeysBound": "true"]))
        return merchant.id
    }

    @Test func windowsOfAnEarlierBuildAreBoundOnceAtStartUpThenAnUnboundWindowIsRefused() async throws {
        let fixture = try await StoreFixture()
        let merchantID = try await Self.merchantOfAnEarlierBuild(fixture)
        // Rotated by an earlier build: a window and no binding.
        let next = try fixture.keyring.newKeyVersion(merchantID: merchantID, purpose: .webhook, version: 2, now: Self.now)
        try await fixture.store.rotateWebhookKey(
            next, windows: [WebhookSigningWindow(merchantID: merchantID, version: 1, signsUntil: Self.now.addingTimeInterval(3600), binding: nil)],
            destroying: [], now: Self.now,
            audit: AuditEntry(merchantID: merchantID, actor: "cli", action: "webhook.secret_rotated", objectType: "merchant", objectID: merchantID))
        let strip: SQLiteQuery = """
            UPDATE merchant_keys SET signs_until_binding = NULL WHERE merchant_id = \(merchantID) AND purpose = 'webhook'
            """
        #expect(try await Self.signing(fixture, merchantID: merchantID, at: Self.now) == [2], "unbound: refused until bound")
        let binding = WebhookSigningWindowBinding(keyring: fixture.keyring)
        let startUp = try await binding.bindLegacyWindows(in: fixture.store)
        #expect(startUp.bound == 1 && startUp.refused.isEmpty)
        #expect(try await Self.signing(fixture, merchantID: merchantID, at: Self.now) == [2, 1])
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'webhook_windows.bound'") == 1)

        // Once bound, a window stripped of its binding is never bound again; nor is one of a
        // merchant created by this build.
        try await fixture.sql.run(strip)
        try await Self.rotate(fixture, at: Self.now, overlap: 3600)
        try await fixture.sql.run("UPDATE merchant_keys SET signs_until_binding = NULL WHERE purpose = 'webhook'")
        let again = try await binding.bindLegacyWindows(in: fixture.store)
        #expect(again.bound == 0)
        #expect(Set(again.refused) == ["\(merchantID)/webhook/1", "\(fixture.merchantID)/webhook/1"])
        #expect(try await Self.signing(fixture, merchantID: merchantID, at: Self.now) == [2])
        #expect(try await Self.signing(fixture, at: Self.now) == [2])
    }

    @Test func aMerchantOfAnEarlierBuildRotatedByThisOneNeverHasAStrippedWindowBoundAtStartUp() async throws {
        let fixture = try await StoreFixture()
        let merchantID = try await Self.merchantOfAnEarlierBuild(fixture)
        let binding = WebhookSigningWindowBinding(keyring: fixture.keyring)
        let first = try await binding.bindLegacyWindows(in: fixture.store)
        #expect(first.bound == 0 && first.refused.isEmpty, "no window of an earlier build")
        try await Self.rotate(fixture, merchantID: merchantID, at: Self.now, overlap: 3600)
        // Stripped of its binding and raised, then a restart: not bound as it stands.
        try await fixture.sql.run(
            """
            UPDATE merchant_keys SET signs_until = '2099-01-01T00:00:00.000Z', signs_until_binding = NULL
            WHERE merchant_id = \(merchantID) AND purpose = 'webhook' AND version = 1
            """)
        let startUp = try await binding.bindLegacyWindows(in: fixture.store)
        #expect(startUp.bound == 0 && startUp.refused == ["\(merchantID)/webhook/1"])
        #expect(try await Self.signing(fixture, merchantID: merchantID, at: Self.now.addingTimeInterval(7200)) == [2])
    }
}
