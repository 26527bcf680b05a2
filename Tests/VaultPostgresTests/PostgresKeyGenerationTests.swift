import Foundation
import Logging
import PostgresNIO
import Testing
import Vault
@testable import VaultPostgres

/// Key rotation through one server picked up by another on the same PostgreSQL database, without
/// restart (issue 15): two `PostgresStore`s and two keyrings, as two `vault serve`.
@Suite(.enabled(if: PostgresLimitsDatabase.url != nil, "VAULT_TEST_DATABASE_URL not set"))
struct PostgresKeyGenerationTests {
    @Test func aDataKeyRotatedThroughOneServerIsUsedByTheOtherAfterTheCheckAndBothReadEverything() async throws {
        try await PostgresLimitsDatabase.withURL { url in
            let storeA = try await PostgresStore(url: url, logger: .quiet)
            defer { storeA.close() }
            let storeB = try await PostgresStore(url: url, logger: .quiet)
            defer { storeB.close() }
            #expect(storeA.migrationsAtStart.contains(3), "the request-limit table is migration 3")
            let ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
            let keyringA = Keyring(masterKeys: ring, store: storeA)
            try await keyringA.verifyMasterKey()
            let clockB = PostgresRequestLimitsTests.WallClock()
            let origin = ContinuousClock.now
            let keyringB = Keyring(masterKeys: ring, store: storeB, clock: { origin + .milliseconds(Int64(clockB.reading() * 1000)) })
            try await keyringB.verifyMasterKey()
            let merchants = MerchantService(
                store: storeA, keyring: keyringA, defaultTimeZone: "UTC", defaultGateway: "sandbox",
                gateways: MerchantGatewayRules([(name: "sandbox", credentialNames: [])]))
            let (merchant, _) = try await merchants.create(name: "m", role: .admin, settings: .init(), actor: "test")
            let plaintext = Array("4242424242424242".utf8)
            let sealedBeforeOnB = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r0")

            #expect(try await merchants.rotateDataKey(merchantID: merchant.id, actor: "test") == 2)
            #expect(try await storeB.keyGeneration() == 1)
            let sealedByA = try await keyringA.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r1")
            let cached = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r2")
            #expect(Keyring.keyVersion(ofSealedRecord: cached) == 1, "within the interval B uses what it has")
            clockB.advance(by: 2.5)
            let fresh = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r3")
            #expect(Keyring.keyVersion(ofSealedRecord: fresh) == 2)
            #expect(try await keyringB.openRecord(sealedByA, merchantID: merchant.id, kind: "card", recordID: "r1").copyToArray() == plaintext)
            #expect(try await keyringA.openRecord(sealedBeforeOnB, merchantID: merchant.id, kind: "card", recordID: "r0").copyToArray() == plaintext)
            #expect(try await keyringA.openRecord(fresh, merchantID: merchant.id, kind: "card", recordID: "r3").copyToArray() == plaintext)
        }
    }
}
