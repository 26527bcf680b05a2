import Foundation
import Scheduler
import StorageTestSupport
import Synchronization
import Testing
import Vault
import VaultSQLite

/// Key generations and data-key destruction (`KeyGenerationStore`, `KeyStore`), on the run's
/// engine: a rotation made through one store is picked up by a keyring over another store on the
/// same database after its generation check, and both read everything; only data-key versions no
/// stored record uses are destroyed.
@Suite("Store conformance: key generations")
struct KeyGenerationConformanceTests {
    /// A clock a test moves by hand, in seconds.
    final class ManualClock: Sendable {
        private let seconds = Mutex(0.0)
        func advance(by delta: Double) { seconds.withLock { $0 += delta } }
        func reading() -> Double { seconds.withLock { $0 } }
    }

    @Test func aDataKeyRotatedThroughOneServerIsUsedByTheOtherAfterTheCheckAndBothReadEverything() async throws {
        let fixture = try await StoreFixture()
        let merchant = fixture.merchant
        try await fixture.withAnotherStore { storeB in
            let generations = try #require(storeB as? any KeyGenerationStore, "every engine keeps a key generation")
            let clockB = ManualClock()
            let origin = ContinuousClock.now
            let keyringB = Keyring(masterKeys: fixture.ring, store: storeB, clock: { origin + .milliseconds(Int64(clockB.reading() * 1000)) })
            try await keyringB.verifyMasterKey()
            let plaintext = Array("4242424242424242".utf8)
            let sealedBeforeOnB = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r0")
            let before = try await generations.keyGeneration()

            #expect(try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test") == 2)
            #expect(try await generations.keyGeneration() == before + 1)
            let sealedByA = try await fixture.keyring.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r1")
            let cached = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r2")
            #expect(Keyring.keyVersion(ofSealedRecord: cached) == 1, "within the interval B uses what it has")
            clockB.advance(by: 2.5)
            let fresh = try await keyringB.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r3")
            #expect(Keyring.keyVersion(ofSealedRecord: fresh) == 2)
            #expect(try await keyringB.openRecord(sealedByA, merchantID: merchant.id, kind: "card", recordID: "r1").copyToArray() == plaintext)
            #expect(
                try await fixture.keyring.openRecord(sealedBeforeOnB, merchantID: merchant.id, kind: "card", recordID: "r0").copyToArray() == plaintext)
            #expect(try await fixture.keyring.openRecord(fresh, merchantID: merchant.id, kind: "card", recordID: "r3").copyToArray() == plaintext)
        }
    }

    @Test func onlyDataKeyVersionsNoStoredRecordUsesAreDestroyed() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        // Version 1 seals the fixture's card; version 2 seals nothing; version 3 is the newest.
        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchantID, actor: "test") == 2)
        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchantID, actor: "test") == 3)
        let destroyed = try await fixture.store.destroyUnusedDataKeys(merchantID: merchantID, below: 3, at: Date(), actor: "test")
        #expect(destroyed == [2])
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'keys.data_key_destroyed'") == 1)
        // The card sealed with version 1 still opens.
        let opened = try await fixture.cards.cardForCharge(reference: fixture.card.reference, merchantID: merchantID)
        #expect(opened.merchantReference == "ref-1")
        // Nothing more to destroy; the newest is never a candidate.
        #expect(try await fixture.store.destroyUnusedDataKeys(merchantID: merchantID, below: 3, at: Date(), actor: "test").isEmpty)
        #expect(try await fixture.count("SELECT count(*) AS n FROM merchant_keys WHERE purpose = 'data' AND wrapped_key IS NOT NULL AND merchant_id = \(merchantID)") == 2)
    }
}
