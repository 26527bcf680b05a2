import Foundation
import Synchronization
import Testing
@testable import Vault
import Scheduler
import StorageTestSupport
import VaultSQLite

/// A `ContinuousClock` reading the test moves by hand.
final class ManualInstantClock: Sendable {
    private let origin = ContinuousClock.now
    private let elapsed = Mutex(Duration.zero)

    func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }

    var reading: @Sendable () -> ContinuousClock.Instant { { self.origin + self.elapsed.withLock { $0 } } }
}

/// Two servers on one database: a key change made through one is picked up by the
/// other without restart, through the key generation, and without a key read per request.
///
/// Node A is the fixture's store and keyring; node B opens the same database through a second
/// store on the run's engine (`openSecondNode`) with a clock of its own.
@Suite struct KeyGenerationTests {
    /// A second store and keyring over the fixture's database, as another server would open it.
    /// The caller closes the store (`TestDatabase.close`) when done.
    static func openSecondNode(of fixture: VaultFixture, ring: MasterKeyRing, clock: ManualInstantClock) async throws
        -> (store: any VaultStorage & KeyGenerationStore, keyring: Keyring)
    {
        let store = try await fixture.openAnother()
        let keyring = Keyring(masterKeys: ring, store: store, clock: clock.reading)
        try await keyring.verifyMasterKey()
        return (store, keyring)
    }

    @Test func aDataKeyRotatedThroughOneServerSealsTheOthersNextRecordsWithinTheCheckIntervalAndBothReadEverything() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "m", role: .admin, settings: .init(), actor: "test")
        let clock = ManualInstantClock()
        let nodeB = try await Self.openSecondNode(of: fixture, ring: fixture.ring, clock: clock)
        defer { TestDatabase.close(nodeB.store) }
        let plaintext = Array("4242424242424242".utf8)
        func seal(_ keyring: Keyring, _ id: String) async throws -> [UInt8] {
            try await keyring.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: id)
        }
        let beforeOnA = try await seal(fixture.keyring, "r0")
        let beforeOnB = try await seal(nodeB.keyring, "r1")
        #expect(Keyring.keyVersion(ofSealedRecord: beforeOnB) == 1)

        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test") == 2)
        #expect(try await nodeB.store.keyGeneration() == 1, "the rotation advanced the shared generation")
        let rotatedOnA = try await seal(fixture.keyring, "r2")
        #expect(Keyring.keyVersion(ofSealedRecord: rotatedOnA) == 2, "the rotating process follows at once")

        clock.advance(by: .seconds(1))
        let stale = try await seal(nodeB.keyring, "r3")
        #expect(Keyring.keyVersion(ofSealedRecord: stale) == 1, "within the interval B seals from its cache, without reading the store")

        clock.advance(by: Keyring.generationCheckInterval)
        let fresh = try await seal(nodeB.keyring, "r4")
        #expect(Keyring.keyVersion(ofSealedRecord: fresh) == 2, "past the interval B seals under the new version, without restart")

        // B reads records sealed by A under both versions, and A reads B's.
        for (blob, id) in [(beforeOnA, "r0"), (rotatedOnA, "r2"), (beforeOnB, "r1"), (stale, "r3")] {
            #expect(try await nodeB.keyring.openRecord(blob, merchantID: merchant.id, kind: "card", recordID: id).copyToArray() == plaintext)
        }
        #expect(try await fixture.keyring.openRecord(fresh, merchantID: merchant.id, kind: "card", recordID: "r4").copyToArray() == plaintext)
    }

    @Test func readingARecordSealedUnderAVersionNewerThanItsOwnMakesAServerLookTheNewestUpAgain() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "m", role: .admin, settings: .init(), actor: "test")
        let clock = ManualInstantClock()
        let nodeB = try await Self.openSecondNode(of: fixture, ring: fixture.ring, clock: clock)
        defer { TestDatabase.close(nodeB.store) }
        let plaintext = Array("record".utf8)
        _ = try await nodeB.keyring.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r0")
        _ = try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test")
        let sealedByA = try await fixture.keyring.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r1")
        // Same instant: no generation read is due, but the unknown version is a sign.
        #expect(try await nodeB.keyring.openRecord(sealedByA, merchantID: merchant.id, kind: "card", recordID: "r1").copyToArray() == plaintext)
        let next = try await nodeB.keyring.sealRecord(plaintext, merchantID: merchant.id, kind: "card", recordID: "r2")
        #expect(Keyring.keyVersion(ofSealedRecord: next) == 2)
    }

    @Test func aMerchantOffboardedThroughOneServerIsRefusedByTheOtherWithinTheCheckInterval() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "m", role: .admin, settings: .init(), actor: "test")
        let clock = ManualInstantClock()
        let nodeB = try await Self.openSecondNode(of: fixture, ring: fixture.ring, clock: clock)
        defer { TestDatabase.close(nodeB.store) }
        let sealed = try await nodeB.keyring.sealRecord(Array("x".utf8), merchantID: merchant.id, kind: "card", recordID: "r0")
        try await fixture.merchants.offboard(name: "m", actor: "test")
        clock.advance(by: Keyring.generationCheckInterval)
        await #expect(throws: KeyringError.keyUnavailable(merchantID: merchant.id, purpose: .data)) {
            _ = try await nodeB.keyring.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "r0")
        }
    }

    @Test func aMasterKeyRotatedThroughOneServerBecomesTheOthersCurrentKEKAndLimitKey() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "m", role: .admin, settings: .init(), actor: "test")
        let rotated = try fixture.ring.addingNewVersion()
        let keyFile = Mutex(fixture.ring)
        let clock = ManualInstantClock()
        let nodeB = try await Self.openSecondNode(of: fixture, ring: fixture.ring, clock: clock)
        defer { TestDatabase.close(nodeB.store) }
        // B reads its key source again when told to: the key file `keys rotate` rewrote.
        nodeB.keyring.setMasterKeyReloader { keyFile.withLock { $0 } }
        let limitKeyBefore = try nodeB.keyring.requestLimitKey().copyToArray()
        _ = try await nodeB.keyring.sealRecord(Array("x".utf8), merchantID: merchant.id, kind: "card", recordID: "r0")

        keyFile.withLock { $0 = rotated }
        let rotating = Keyring(masterKeys: rotated, store: fixture.store)
        _ = try await rotating.rewrapAll(actor: "test")
        clock.advance(by: Keyring.generationCheckInterval)
        let sealed = try await nodeB.keyring.sealRecord(Array("y".utf8), merchantID: merchant.id, kind: "card", recordID: "r1")
        #expect(try await rotating.openRecord(sealed, merchantID: merchant.id, kind: "card", recordID: "r1").copyToArray() == Array("y".utf8))
        #expect(nodeB.keyring.currentMasterKeyVersion == 2)
        #expect(try nodeB.keyring.requestLimitKey().copyToArray() == rotating.requestLimitKey().copyToArray())
        #expect(try nodeB.keyring.requestLimitKey().copyToArray() != limitKeyBefore)
    }

    @Test func aFreshDatabaseIsAtGenerationZeroAndEachAdvanceAddsOne() async throws {
        let fixture = try await VaultFixture()
        #expect(try await fixture.store.keyGeneration() == 0)
        #expect(try await fixture.store.advanceKeyGeneration() == 1)
        #expect(try await fixture.store.advanceKeyGeneration() == 2)
        #expect(try await fixture.store.keyGeneration() == 2)
    }
}
