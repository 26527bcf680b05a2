import Foundation
import Synchronization
import Testing
@testable import Vault
import VaultSQLite
import Scheduler
import StorageTestSupport

@Suite struct KeyringTests {
    @Test func recordsSealedForOneMerchantOpenOnlyForThatRecord() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let sealed = try await fixture.keyring.sealRecord(Array("secret".utf8), merchantID: merchant.id, kind: "card", recordID: "sc_1")
        let opened = try await fixture.keyring.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "sc_1")
        #expect(opened.copyToArray() == Array("secret".utf8))
        await #expect(throws: CryptoError.authenticationFailed) {
            _ = try await fixture.keyring.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "sc_2")
        }
        let (other, _) = try await fixture.merchants.create(name: "globex", role: .admin, settings: .init(), actor: "test")
        await #expect(throws: (any Error).self) {
            _ = try await fixture.keyring.openRecord(sealed, merchantID: other.id, kind: "card", recordID: "sc_1")
        }
    }

    @Test func sealedRecordsSayTheirDataKeyVersion() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let sealed = try await fixture.keyring.sealRecord([1, 2, 3], merchantID: merchant.id, kind: "card", recordID: "sc_1")
        #expect(Keyring.keyVersion(ofSealedRecord: sealed) == 1)
    }

    @Test func wrongMasterKeyIsRefusedBeforeAnythingChanges() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let before = try await fixture.store.kekVersions()
        let wrong = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        await #expect(throws: KeyringError.wrongMasterKey(version: 1)) {
            try await fixture.reopened(with: wrong).verifyMasterKey()
        }
        #expect(try await fixture.store.kekVersions() == before)
    }

    @Test func aKeySourceWithoutTheVersionInUseIsRefused() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let onlyNew = try MasterKeyRing(keys: [2: SecureBytes.random(count: 32)])
        await #expect(throws: KeyringError.missingMasterKeyVersion(1)) {
            try await fixture.reopened(with: onlyNew).verifyMasterKey()
        }
    }

    @Test func rotationRewrapsEveryKeyAndKeepsOldRecordsReadable() async throws {
        let fixture = try await VaultFixture()
        var merchantIDs: [String] = []
        var sealed: [[UInt8]] = []
        for name in ["a", "b", "c"] {
            let (merchant, _) = try await fixture.merchants.create(
                name: name, role: .admin, settings: .init(gateway: "nmi", gatewayCredentials: ["security_key": "sk-\(name)"]), actor: "test")
            merchantIDs.append(merchant.id)
            sealed.append(try await fixture.keyring.sealRecord(Array(name.utf8), merchantID: merchant.id, kind: "card", recordID: "r"))
        }
        let rotated = try fixture.ring.addingNewVersion()
        let keyring = fixture.reopened(with: rotated)
        let count = try await keyring.rewrapAll(batchSize: 2, actor: "test")
        #expect(count == 9)
        #expect(try await fixture.store.wrappedKeyCounts() == [2: 9])
        let retired = try await fixture.store.kekVersions().filter { $0.retiredAt != nil }.map(\.version)
        #expect(retired == [1])

        let onlyNew = keyring.currentMasterKeyVersion == 2 ? rotated.removing(versionsBelow: 2) : rotated
        let fresh = fixture.reopened(with: onlyNew)
        try await fresh.verifyMasterKey()
        for (index, merchantID) in merchantIDs.enumerated() {
            let opened = try await fresh.openRecord(sealed[index], merchantID: merchantID, kind: "card", recordID: "r")
            #expect(opened.copyToArray() == Array(["a", "b", "c"][index].utf8))
        }
        let service = MerchantService(store: fixture.store, keyring: fresh, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: TestGateways.rules)
        #expect(try await service.gatewayCredentials(merchantID: merchantIDs[1]) == ["security_key": "sk-b"])
    }

    @Test func aServerWhoseKeySourceWasRotatedUnderItPassesItsReadinessCheckByReadingTheSourceAgain() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "a", role: .admin, settings: .init(), actor: "test")
        // A running server holds version 1; its key source is what the file says now.
        let source = Mutex(fixture.ring)
        let running = fixture.reopened(with: fixture.ring)
        running.setMasterKeyReloader { source.withLock { $0 } }
        try await running.verifyMasterKey()

        // `vault keys rotate` in another process: version 2 added, keys rewrapped, version 1 retired and dropped from the file.
        let rotated = try fixture.ring.addingNewVersion()
        _ = try await fixture.reopened(with: rotated).rewrapAll(actor: "test")
        source.withLock { $0 = rotated.removing(versionsBelow: 2) }

        try await running.verifyMasterKey()
        #expect(running.currentMasterKeyVersion == 2)
        // A server that cannot read its source again still says why it is not ready.
        let stale = fixture.reopened(with: fixture.ring)
        await #expect(throws: KeyringError.missingMasterKeyVersion(2)) { try await stale.verifyMasterKey() }
    }

    @Test func rotationIsSafeToRunAgain() async throws {
        let fixture = try await VaultFixture()
        _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let keyring = fixture.reopened(with: try fixture.ring.addingNewVersion())
        #expect(try await keyring.rewrapAll(actor: "test") == 3)
        #expect(try await keyring.rewrapAll(actor: "test") == 0)
    }

    @Test func fingerprintsAreStableWithinAMerchantAndDifferAcrossMerchants() async throws {
        let fixture = try await VaultFixture()
        let (a, _) = try await fixture.merchants.create(name: "a", role: .admin, settings: .init(), actor: "test")
        let (b, _) = try await fixture.merchants.create(name: "b", role: .admin, settings: .init(), actor: "test")
        let pan = "4242424242424242"
        let first = try await fixture.keyring.fingerprint(ofPAN: pan, merchantID: a.id)
        #expect(try await fixture.keyring.fingerprint(ofPAN: pan, merchantID: a.id) == first)
        #expect(try await fixture.keyring.fingerprint(ofPAN: pan, merchantID: b.id) != first)
        #expect(!first.contains(pan))
        let rotated = fixture.reopened(with: try fixture.ring.addingNewVersion())
        _ = try await rotated.rewrapAll(actor: "test")
        #expect(try await rotated.fingerprint(ofPAN: pan, merchantID: a.id) == first)
    }

    @Test func offboardingMakesEveryRecordOfTheMerchantUnreadable() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let sealed = try await fixture.keyring.sealRecord([9, 9], merchantID: merchant.id, kind: "card", recordID: "r")
        try await fixture.merchants.offboard(name: "acme", actor: "test")
        let fresh = fixture.reopened(with: fixture.ring)
        await #expect(throws: KeyringError.keyUnavailable(merchantID: merchant.id, purpose: .data)) {
            _ = try await fresh.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "r")
        }
        await #expect(throws: KeyringError.keyUnavailable(merchantID: merchant.id, purpose: .data)) {
            _ = try await fixture.keyring.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "r")
        }
        #expect(try await fixture.merchants.authenticate(bearer: key.bearer) == nil)
    }
}
