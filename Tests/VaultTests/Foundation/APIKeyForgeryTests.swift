import Foundation
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// Someone who can write to the database but holds no key (a DBA, a restored backup, a replica)
/// cannot make an API key work: a key inserted in SQL, one moved to another merchant, one raised
/// to another role and one un-revoked all authenticate nobody and list as `tampered`, on either
/// engine; keys of an earlier build are bound once, and a legacy-shaped row inserted after that is
/// refused.
@Suite struct APIKeyForgeryTests {
    /// A bearer the attacker made up, and the row they insert for it as a plain SHA-256 key.
    static func forgedRow(merchantID: String, role: String = "admin", scheme: Int, binding: [UInt8]?) -> (bearer: String, insert: SQLiteQuery) {
        let id = String(repeating: "F", count: 16)
        let bearer = "vk_\(id)_" + String(repeating: "A", count: 32)
        let insert: SQLiteQuery = """
            INSERT INTO api_keys (id, merchant_id, role, secret_hash, created_at, secret_scheme, binding)
            VALUES (\("key_" + id), \(merchantID), \(role), \(Digest.sha256(Array(bearer.utf8))), \(Timestamp.string(Date())), \(scheme), \(binding))
            """
        return (bearer, insert)
    }

    @Test(arguments: [0, 1])
    func aKeyInsertedInSQLAuthenticatesNobody(scheme: Int) async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let forged = Self.forgedRow(merchantID: merchant.id, scheme: scheme, binding: scheme == 1 ? [UInt8](repeating: 1, count: 32) : nil)
        #expect(try await fixture.sql.run(forged.insert) == 1)
        #expect(try await fixture.merchants.authenticate(bearer: forged.bearer) == nil)
        // Nor after a restart, when rows of an earlier build are bound: this merchant's were bound at creation.
        let startUp = try await fixture.merchants.bindLegacyAPIKeys()
        #expect(startUp.bound == 0)
        #expect(startUp.refused == (scheme == 0 ? ["key_" + String(repeating: "F", count: 16)] : []))
        #expect(try await fixture.merchants.authenticate(bearer: forged.bearer) == nil)
        let listed = try await fixture.merchants.keys(merchantName: "acme")
        #expect(listed.filter { !$0.intact }.map(\.record.id) == ["key_" + String(repeating: "F", count: 16)])
    }

    @Test func aKeyMovedToAnotherMerchantRaisedOrUnrevokedAuthenticatesNobody() async throws {
        let clock = ManualInstantClock()
        let fixture = try await VaultFixture(clock: clock)
        let (acme, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let (_, othersKey) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        let readonly = try await fixture.merchants.issueKey(merchantName: "acme", role: .readonly, actor: "test")
        let revoked = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, actor: "test")
        try await fixture.merchants.revokeKey(merchantName: "acme", keyID: revoked.record.id, actor: "test")
        for key in [othersKey, readonly] { #expect(try await fixture.merchants.authenticate(bearer: key.bearer) != nil) }

        _ = try await fixture.sql.run("UPDATE api_keys SET merchant_id = \(acme.id) WHERE id = \(othersKey.record.id)")
        _ = try await fixture.sql.run("UPDATE api_keys SET role = 'admin' WHERE id = \(readonly.record.id)")
        _ = try await fixture.sql.run("UPDATE api_keys SET revoked_at = NULL WHERE id = \(revoked.record.id)")
        // The two verified a moment ago act as issued until this process reads the key generation
        // again, which the changes advanced (``APIKeyCredentialCache``): the changed rows grant nothing.
        #expect(try await fixture.merchants.authenticate(bearer: othersKey.bearer)?.merchant.id == othersKey.record.merchantID)
        #expect(try await fixture.merchants.authenticate(bearer: readonly.bearer)?.key.role == .readonly)
        #expect(try await fixture.merchants.authenticate(bearer: revoked.bearer) == nil)
        clock.advance(by: Keyring.generationCheckInterval)
        for key in [othersKey, readonly, revoked] {
            #expect(try await fixture.merchants.authenticate(bearer: key.bearer) == nil, "\(key.record.id)")
        }
        let tampered = try await fixture.merchants.keys(merchantName: "acme").filter { !$0.intact }.map(\.record.id)
        #expect(Set(tampered) == [othersKey.record.id, readonly.record.id, revoked.record.id])

        // Put back as they were, they work again (the binding is of the row's values, nothing else).
        _ = try await fixture.sql.run("UPDATE api_keys SET role = 'readonly' WHERE id = \(readonly.record.id)")
        #expect(try await fixture.merchants.authenticate(bearer: readonly.bearer)?.key.role == .readonly)
    }

    /// A merchant as an earlier build created it: its first key kept as the plain SHA-256 of the
    /// bearer, no binding, and a `merchant.created` event that says nothing of bound keys.
    static func merchantOfAnEarlierBuild(_ fixture: VaultFixture) async throws -> (merchant: Merchant, bearer: String) {
        let now = Date()
        let merchant = Merchant(
            id: OpaqueToken.make(prefix: "mer_", randomBits: 80), sequence: 0, name: "acme", status: .active,
            gateway: GatewaySettings(name: "sandbox"), timeZone: "UTC", callbackURL: nil, verifyOnRegistration: true, createdAt: now, updatedAt: now)
        let (record, bearer) = APIKeys.newKey(merchantID: merchant.id, role: .runner, now: now)
        _ = try await fixture.store.createMerchant(
            merchant, keys: try fixture.keyring.newMerchantKeys(merchantID: merchant.id, now: now), sealedGatewayCredentials: nil,
            apiKey: IssuedAPIKey(record: record, bearer: bearer, storedSecret: Digest.sha256(Array(bearer.utf8)), binding: []),
            audit: AuditEntry(merchantID: merchant.id, actor: "cli", action: "merchant.created", objectType: "merchant", objectID: merchant.id,
                              details: ["name": "acme", "apiKey": record.id, "role": "runner"]))
        _ = try await fixture.sql.run("UPDATE api_keys SET secret_scheme = 0, binding = NULL WHERE id = \(record.id)")
        return (merchant, bearer)
    }

    @Test func keysOfAnEarlierBuildAreBoundOnceAndStillAuthenticate() async throws {
        let fixture = try await VaultFixture()
        let (merchant, bearer) = try await Self.merchantOfAnEarlierBuild(fixture)
        #expect(try await fixture.merchants.authenticate(bearer: bearer) == nil, "not until it is bound")
        let startUp = try await fixture.merchants.bindLegacyAPIKeys()
        #expect(startUp.bound == 1 && startUp.refused.isEmpty)
        #expect(try await fixture.merchants.authenticate(bearer: bearer)?.merchant.id == merchant.id)
        #expect(try await fixture.sql.count("SELECT count(*) AS n FROM audit_events WHERE action = 'api_keys.bound'") == 1)
        let chain = try await fixture.store.verifyAuditChain()
        if case .intact = chain {} else { Issue.record("the audit chain is \(chain)") }
        // Once bound, a legacy-shaped row inserted for the merchant is never bound.
        let forged = Self.forgedRow(merchantID: merchant.id, scheme: 0, binding: nil)
        _ = try await fixture.sql.run(forged.insert)
        #expect(try await fixture.merchants.bindLegacyAPIKeys().refused == ["key_" + String(repeating: "F", count: 16)])
        #expect(try await fixture.merchants.authenticate(bearer: forged.bearer) == nil)
    }

    @Test func aStartStoppedAfterTheFirstBatchOfKeysBindsTheRestAtTheNextStartAndEveryKeyAuthenticates() async throws {
        let fixture = try await VaultFixture()
        let (merchant, first) = try await Self.merchantOfAnEarlierBuild(fixture)
        var bearers = [first]
        for _ in 0..<4 {
            let (record, bearer) = APIKeys.newKey(merchantID: merchant.id, role: .admin, now: Date())
            try await fixture.store.addAPIKey(
                IssuedAPIKey(record: record, bearer: bearer, storedSecret: Digest.sha256(Array(bearer.utf8)), binding: []),
                audit: AuditEntry(merchantID: merchant.id, actor: "cli", action: "api_key.issued", objectType: "api_key", objectID: record.id))
            _ = try await fixture.sql.run("UPDATE api_keys SET secret_scheme = 0, binding = NULL WHERE id = \(record.id)")
            bearers.append(bearer)
        }
        // The third key in the order rows are read holds a value this build cannot read: the start
        // binds the first batch of two, then stops on the second.
        let ids = bearers.compactMap(APIKeys.keyID(ofBearer:)).sorted()
        _ = try await fixture.sql.run("UPDATE api_keys SET last_used_at = 'not a time' WHERE id = \(ids[2])")
        await #expect(throws: StoredRowError.self) { _ = try await fixture.merchants.bindLegacyAPIKeys(batchSize: 2) }
        #expect(try await fixture.sql.count("SELECT count(*) AS n FROM api_keys WHERE secret_scheme = 0") == 3)

        // Once the row is readable again, the next start binds the rest and records the merchant once.
        _ = try await fixture.sql.run("UPDATE api_keys SET last_used_at = NULL WHERE id = \(ids[2])")
        let restart = try await fixture.merchants.bindLegacyAPIKeys(batchSize: 2)
        #expect(restart.bound == 3 && restart.refused.isEmpty)
        for bearer in bearers { #expect(try await fixture.merchants.authenticate(bearer: bearer)?.merchant.id == merchant.id) }
        #expect(try await fixture.sql.count("SELECT count(*) AS n FROM audit_events WHERE action = 'api_keys.bound'") == 1)
    }
}
