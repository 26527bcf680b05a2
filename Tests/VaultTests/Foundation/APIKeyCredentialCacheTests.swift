import Foundation
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// A key verified a moment ago is not read again (``APIKeyCredentialCache``), and that never
/// outlives a change: this process's own changes are seen at once, another server's and SQL
/// written behind the vault's back once the key generation is next read (every
/// ``Keyring/generationCheckInterval``), which the database advances by trigger; on either engine.
@Suite struct APIKeyCredentialCacheTests {
    @Test func aKeyVerifiedAMomentAgoActsAsReadUntilTheGenerationMovesAndItsLastUseMovesNothing() async throws {
        let clock = ManualInstantClock()
        let fixture = try await VaultFixture(clock: clock)
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let readonly = try await fixture.merchants.issueKey(merchantName: "acme", role: .readonly, actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: readonly.bearer)?.customFields != nil, "read for the first request")
        let generation = try await fixture.store.keyGeneration()

        _ = try await fixture.sql.run("UPDATE api_keys SET last_used_at = \(Timestamp.string(Date())) WHERE id = \(readonly.record.id)")
        #expect(try await fixture.store.keyGeneration() == generation, "recording a key's use is not a change of the key")
        _ = try await fixture.sql.run("UPDATE api_keys SET role = 'admin' WHERE id = \(readonly.record.id)")
        #expect(try await fixture.store.keyGeneration() == generation + 1, "the trigger advanced the generation")

        let kept = try #require(try await fixture.merchants.authenticate(bearer: readonly.bearer))
        #expect(kept.customFields == nil, "not read again")
        #expect(kept.key.role == .readonly, "as verified, not as raised")
        clock.advance(by: Keyring.generationCheckInterval)
        #expect(try await fixture.merchants.authenticate(bearer: readonly.bearer) == nil, "read again: the raised row fails its binding")
    }

    /// A column added to `api_keys` or `merchants` later is a change the generation must follow
    /// (unless it is the key's last use): every column's update advances it, on the engine's own
    /// list of the table's columns.
    @Test func anUpdateOfAnyColumnButTheLastUseAdvancesTheGeneration() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        for (table, id) in [("api_keys", key.record.id), ("merchants", merchant.id)] {
            let columns: [String] = switch fixture.sql.engine {
            case .sqlite: try await fixture.sql.query("SELECT name FROM pragma_table_info(\(table))").map { try $0.string("name") }
            case .postgres:
                try await fixture.sql.query("SELECT column_name AS name FROM information_schema.columns WHERE table_name = \(table)")
                    .map { try $0.string("name") }
            }
            #expect(columns.count > 8, "\(table): \(columns)")
            for column in columns {
                let before = try await fixture.store.keyGeneration()
                #expect(try await fixture.sql.run("UPDATE \(unescaped: table) SET \(unescaped: column) = \(unescaped: column) WHERE id = \(id)") == 1)
                let advanced = try await fixture.store.keyGeneration() > before
                #expect(advanced == (table == "merchants" || column != "last_used_at"), "\(table).\(column)")
            }
        }
    }

    @Test func thisProcesssRevocationOffboardingAndSettingsAreSeenAtOnce() async throws {
        let fixture = try await VaultFixture(clock: ManualInstantClock())
        let (_, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let other = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, actor: "test")
        for bearer in [key.bearer, other.bearer] { #expect(try await fixture.merchants.authenticate(bearer: bearer) != nil) }

        _ = try await fixture.merchants.update(name: "acme", settings: MerchantSettings(timeZone: "Europe/Paris"), actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer)?.merchant.timeZone == "Europe/Paris")
        try await fixture.merchants.revokeKey(merchantName: "acme", keyID: key.record.id, actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer) == nil)
        #expect(try await fixture.merchants.authenticate(bearer: other.bearer) != nil)
        try await fixture.merchants.offboard(name: "acme", actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: other.bearer) == nil)
    }

    @Test func anotherServersRevocationAndSettingsAreSeenWithinTheCheckInterval() async throws {
        let fixture = try await VaultFixture()
        let (_, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let clock = ManualInstantClock()
        let nodeB = try await KeyGenerationTests.openSecondNode(of: fixture, ring: fixture.ring, clock: clock)
        defer { TestDatabase.close(nodeB.store) }
        let merchantsB = MerchantService(
            store: nodeB.store, keyring: nodeB.keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: TestGateways.rules)
        #expect(try await merchantsB.authenticate(bearer: key.bearer)?.merchant.timeZone == "UTC")

        _ = try await fixture.merchants.update(name: "acme", settings: MerchantSettings(timeZone: "Asia/Tokyo"), actor: "test")
        clock.advance(by: Keyring.generationCheckInterval)
        #expect(try await merchantsB.authenticate(bearer: key.bearer)?.merchant.timeZone == "Asia/Tokyo")

        try await fixture.merchants.revokeKey(merchantName: "acme", keyID: key.record.id, actor: "test")
        #expect(try await merchantsB.authenticate(bearer: key.bearer) != nil, "within the interval B acts on what it verified")
        clock.advance(by: Keyring.generationCheckInterval)
        #expect(try await merchantsB.authenticate(bearer: key.bearer) == nil)
    }

    @Test func anEntryServesOnlyItsGenerationForItsLifetimeAndFailedKeysAreNotKept() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let stored = try #require(try await fixture.store.apiKeyCredential(id: key.record.id)?.key)
        let cache = APIKeyCredentialCache()
        let readAt = Date()
        cache.remember(stored, merchant: merchant, generation: 7, readAt: readAt)
        #expect(cache.credential(keyID: key.record.id, generation: 7, now: readAt.addingTimeInterval(59))?.key == stored)
        #expect(cache.credential(keyID: key.record.id, generation: 8, now: readAt) == nil, "another generation")
        #expect(cache.credential(keyID: key.record.id, generation: 7, now: readAt) == nil, "dropped by the miss before")
        cache.remember(stored, merchant: merchant, generation: 7, readAt: readAt)
        #expect(cache.credential(keyID: key.record.id, generation: 7, now: readAt.addingTimeInterval(APIKeyCredentialCache.lifetime)) == nil)
        cache.remember(stored, merchant: merchant, generation: 7, readAt: readAt)
        #expect(cache.credential(keyID: key.record.id, generation: 7, now: readAt.addingTimeInterval(-1)) == nil, "a clock set back")

        // A wrong secret is refused on every request, kept or not, and keeps nothing.
        let wrong = String(key.bearer.dropLast(4)) + "AAAA"
        #expect(try await fixture.merchants.authenticate(bearer: wrong) == nil)
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer)?.customFields != nil, "read: the refusal kept nothing")
        #expect(try await fixture.merchants.authenticate(bearer: wrong) == nil, "checked against the kept row")
    }
}
