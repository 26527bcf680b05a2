import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `IdempotencyStore` claims, on the run's engine: one request starts per merchant and key however
/// many arrive at once on however many servers; a completed one replays, a different request under
/// the same key is a mismatch, a released key starts again, and keys older than the retention
/// period are forgotten.
@Suite("Store conformance: idempotency claims")
struct IdempotencyConformanceTests {
    static let mac = [UInt8](repeating: 7, count: 32)

    static func claim(_ store: any VaultStorage, merchantID: String, key: String, mac: [UInt8] = mac, now: Date = Date()) async throws
        -> IdempotencyClaim
    {
        try await store.claimIdempotencyKey(merchantID: merchantID, key: key, requestMAC: mac, legacyRequestMAC: { [] }, now: now)
    }

    @Test func oneIdempotencyKeyClaimedOnTwoServersAtOnceStartsOnce() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let claims = try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
                for index in 0..<16 {
                    let store = index % 2 == 0 ? fixture.store : second
                    group.addTask { try await Self.claim(store, merchantID: merchantID, key: "k1") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(claims.filter { $0 == .started }.count == 1)
        #expect(claims.filter { $0 == .inProgress }.count == 15)
        // A different body under the same key is a mismatch, on either server.
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32)) == .mismatch)
        let onSecond = try await fixture.withAnotherStore { second in
            try await Self.claim(second, merchantID: merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32))
        }
        #expect(onSecond == .mismatch)
    }

    @Test func aCompletedRequestReplaysItsSealedResponseAndADifferentRequestIsAMismatch() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1") == .started)
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1") == .inProgress)
        try await fixture.store.completeIdempotentRequest(
            merchantID: merchantID, key: "k1", status: 201, sealedBody: [1, 2, 3], keyVersion: 1, secureCardID: nil)
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1") == .replay(status: 201, sealedBody: [1, 2, 3]))
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32)) == .mismatch)
    }

    @Test func keysAreSeparatePerMerchant() async throws {
        let fixture = try await StoreFixture()
        let (other, _) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "k1") == .started)
        #expect(try await Self.claim(fixture.store, merchantID: other.id, key: "k1", mac: [UInt8](repeating: 8, count: 32)) == .started)
    }

    @Test func aReleasedKeyStartsAgain() async throws {
        let fixture = try await StoreFixture()
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "k1") == .started)
        try await fixture.store.releaseIdempotencyKey(merchantID: fixture.merchantID, key: "k1")
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32)) == .started)
    }

    @Test func keysOlderThanTheRetentionAreForgottenAndNewerOnesKept() async throws {
        let fixture = try await StoreFixture()
        let now = Date()
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "old", now: now.addingTimeInterval(-7200)) == .started)
        try await fixture.store.completeIdempotentRequest(
            merchantID: fixture.merchantID, key: "old", status: 200, sealedBody: [9], keyVersion: 1, secureCardID: nil)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "new", now: now) == .started)
        #expect(try await fixture.store.purgeIdempotencyKeys(olderThan: now.addingTimeInterval(-3600)) == 1)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "old", mac: [UInt8](repeating: 8, count: 32)) == .started)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "new") == .inProgress)
    }
}
