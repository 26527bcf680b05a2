import Foundation
import Testing
@testable import Vault
import Scheduler
import StorageTestSupport
import VaultSQLite

@Suite struct MerchantServiceTests {
    @Test func apiKeysAreStoredOnlyAsKeyedMACsBoundToTheirRow() async throws {
        let fixture = try await VaultFixture()
        let (_, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let rows = try await fixture.sql.query("SELECT * FROM api_keys")
        #expect(rows.count == 1)
        let secretPart = String(key.bearer.split(separator: "_")[2])
        for row in rows {
            for column in ["id", "merchant_id", "role"] {
                #expect(!(try row.string(column)).contains(secretPart))
            }
            #expect(try row.blob("secret_hash") != Digest.sha256(Array(key.bearer.utf8)), "not the plain SHA-256 an insider could compute")
            #expect(try row.blob("secret_hash") == key.storedSecret)
            #expect(try row.int("secret_scheme") == StoredAPIKey.SecretScheme.bound.rawValue)
            #expect(try row.optionalBlob("binding") == key.binding)
        }
        #expect(try await !fixture.storedDataContains(key.bearer))
    }

    @Test func aBearerKeyAuthenticatesItsMerchantWithItsRole() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .runner, settings: .init(), actor: "test")
        let identity = try await fixture.merchants.authenticate(bearer: key.bearer)
        #expect(identity?.merchant.id == merchant.id)
        #expect(identity?.key.role == .runner)
    }

    @Test(arguments: ["", "vk_", "garbage", "vk_aaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"])
    func unknownOrMalformedBearersAreRejected(_ bearer: String) async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: bearer) == nil)
    }

    @Test func aKeyWithTheRightIDButWrongSecretIsRejected() async throws {
        let fixture = try await VaultFixture()
        let (_, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        var forged = Array(key.bearer)
        forged[forged.count - 1] = forged[forged.count - 1] == "a" ? "b" : "a"
        #expect(try await fixture.merchants.authenticate(bearer: String(forged)) == nil)
    }

    @Test func revokedKeysStopWorking() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let second = try await fixture.merchants.issueKey(merchantName: "acme", role: .readonly, actor: "test")
        #expect(try await fixture.merchants.authenticate(bearer: second.bearer) != nil)
        let revokedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
        try await fixture.merchants.revokeKey(merchantName: "acme", keyID: second.record.id, actor: "test", now: revokedAt)
        #expect(try await fixture.merchants.authenticate(bearer: second.bearer) == nil)
        // A second revocation says when the first was, and changes nothing.
        await #expect(throws: MerchantError.apiKeyAlreadyRevoked(second.record.id, at: revokedAt)) {
            try await fixture.merchants.revokeKey(merchantName: "acme", keyID: second.record.id, actor: "test")
        }
        await #expect(throws: MerchantError.apiKeyNotFound("key_unknown")) {
            try await fixture.merchants.revokeKey(merchantName: "acme", keyID: "key_unknown", actor: "test")
        }
    }

    @Test func duplicateAndInvalidNamesAreRefused() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        await #expect(throws: MerchantError.nameTaken("acme")) {
            _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        }
        await #expect(throws: MerchantError.invalidName("has space")) {
            _ = try await fixture.merchants.create(name: "has space", role: .admin, settings: .init(), actor: "test")
        }
        #expect(try await fixture.store.merchants().count == 1)
    }

    @Test(arguments: [
        (MerchantSettings(gateway: "paypal"), "gateway"),
        (MerchantSettings(gatewayURL: "ftp://x"), "gateway-url"),
        (MerchantSettings(gateway: "nmi", gatewayCredentials: ["password": "x"]), "gateway-credential"),
        (MerchantSettings(timeZone: "Mars/Olympus"), "time-zone"),
        (MerchantSettings(callbackURL: "not a url"), "callback-url"),
    ])
    func invalidSettingsAreRefusedNamingTheSetting(settings: MerchantSettings, setting: String) async throws {
        let fixture = try await VaultFixture()
        do {
            _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: settings, actor: "test")
            Issue.record("accepted invalid \(setting)")
        } catch let error as MerchantSettingError {
            #expect(error.setting == setting)
        }
        #expect(try await fixture.store.merchants().isEmpty)
    }

    @Test func gatewayCredentialsAreSealedAtRest() async throws {
        let fixture = try await VaultFixture()
        let secret = "SECRET-TRANSACTION-KEY-123"
        let (merchant, _) = try await fixture.merchants.create(
            name: "acme", role: .admin,
            settings: .init(gateway: "authorizenet", gatewayCredentials: ["name": "login", "transactionKey": secret]), actor: "test")
        #expect(try await fixture.merchants.gatewayCredentials(merchantID: merchant.id) == ["name": "login", "transactionKey": secret])
        #expect(try await !fixture.storedDataContains(secret, closingFirst: true))
    }

    @Test func updatesChangeOnlyTheGivenSettings() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(timeZone: "Europe/London"), actor: "test")
        let updated = try await fixture.merchants.update(
            name: "acme", settings: .init(callbackURL: "https://example.test/hooks"), actor: "test")
        #expect(updated.timeZone == "Europe/London")
        #expect(updated.callbackURL == "https://example.test/hooks")
        let stored = try #require(try await fixture.store.merchant(named: "acme"))
        #expect(stored.timeZone == "Europe/London")
        #expect(stored.callbackURL == "https://example.test/hooks")
    }
}
