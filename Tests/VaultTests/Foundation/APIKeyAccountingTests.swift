import Foundation
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// API keys an auditor can account for, on either engine: a label, an expiry that is refused like
/// a revocation and is bound into the row (extended in SQL, the key authenticates nobody), and a
/// last use recorded at most once a minute per key.
@Suite struct APIKeyAccountingTests {
    /// Now, to the whole second: instants are stored to the millisecond, so a comparison at an
    /// exact offset from a stored instant must start from one that stores exactly.
    static func wholeSecond() -> Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded()) }

    @Test func anExpiredKeyIsRefusedLikeARevokedOne() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let now = Self.wholeSecond()
        let key = try await fixture.merchants.issueKey(
            merchantName: "acme", role: .readonly, label: "nightly report", expiresAt: now.addingTimeInterval(3600), actor: "test", now: now)
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: now.addingTimeInterval(3599)) != nil)
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: now.addingTimeInterval(3600)) == nil)
        let listed = try await fixture.merchants.keys(merchantName: "acme").first { $0.record.id == key.record.id }
        #expect(listed?.intact == true)
        #expect(listed?.record.label == "nightly report")
        #expect(listed?.record.expiresAt.map(Timestamp.string) == Timestamp.string(now.addingTimeInterval(3600)))
    }

    @Test func aKeyWhoseExpiryWasExtendedOrRemovedInSQLAuthenticatesNobody() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let now = Self.wholeSecond()
        let key = try await fixture.merchants.issueKey(
            merchantName: "acme", role: .admin, expiresAt: now.addingTimeInterval(60), actor: "test", now: now)
        let later = now.addingTimeInterval(3600)
        _ = try await fixture.sql.run("UPDATE api_keys SET expires_at = \(Timestamp.string(later.addingTimeInterval(86_400))) WHERE id = \(key.record.id)")
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: later) == nil)
        _ = try await fixture.sql.run("UPDATE api_keys SET expires_at = NULL WHERE id = \(key.record.id)")
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: later) == nil)
        #expect(try await fixture.merchants.keys(merchantName: "acme").first { $0.record.id == key.record.id }?.intact == false)
        // The label is not bound: changing it grants nothing and breaks nothing.
        let plain = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, actor: "test", now: now)
        _ = try await fixture.sql.run("UPDATE api_keys SET label = 'renamed' WHERE id = \(plain.record.id)")
        #expect(try await fixture.merchants.authenticate(bearer: plain.bearer, now: now) != nil)
    }

    @Test func anExpiryThatIsNotInTheFutureOrABadLabelIsRefusedAndIssuesNothing() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let now = Self.wholeSecond()
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, expiresAt: now, actor: "test", now: now)
        }
        for label in ["", "tab\there", "card 4242424242424242", String(repeating: "x", count: 101)] {
            await #expect(throws: MerchantSettingError.self) {
                _ = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, label: label, actor: "test", now: now)
            }
        }
        #expect(try await fixture.merchants.keys(merchantName: "acme").count == 1)
    }

    @Test func lastUseIsRecordedAtMostOnceAMinutePerKey() async throws {
        let fixture = try await VaultFixture()
        let (_, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        func lastUsed() async throws -> Date? {
            let keys = try await fixture.merchants.keys(merchantName: "acme")
            return keys.first { $0.record.id == key.record.id }?.record.lastUsedAt
        }
        #expect(try await lastUsed() == nil)
        let start = Self.wholeSecond()
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: start) != nil)
        #expect(try await lastUsed().map(Timestamp.string) == Timestamp.string(start))
        for second in [1.0, 30, 59] {
            #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: start.addingTimeInterval(second)) != nil)
        }
        #expect(try await lastUsed().map(Timestamp.string) == Timestamp.string(start))
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer, now: start.addingTimeInterval(61)) != nil)
        #expect(try await lastUsed().map(Timestamp.string) == Timestamp.string(start.addingTimeInterval(61)))
    }

    @Test func revokingAKeyAlreadyRevokedSaysSoAndChangesNothing() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let key = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, actor: "test")
        let first = Self.wholeSecond()
        try await fixture.merchants.revokeKey(merchantName: "acme", keyID: key.record.id, actor: "test", now: first)
        let events = try await fixture.sql.count("SELECT count(*) FROM audit_events WHERE action = 'api_key.revoked'")
        await #expect(throws: MerchantError.apiKeyAlreadyRevoked(key.record.id, at: first)) {
            try await fixture.merchants.revokeKey(merchantName: "acme", keyID: key.record.id, actor: "test", now: first.addingTimeInterval(5))
        }
        #expect(try await fixture.sql.count("SELECT count(*) FROM audit_events WHERE action = 'api_key.revoked'") == events)
        #expect(try await fixture.merchants.keys(merchantName: "acme").first { $0.record.id == key.record.id }?.intact == true)
    }
}
