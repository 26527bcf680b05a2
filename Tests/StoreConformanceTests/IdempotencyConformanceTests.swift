import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `IdempotencyStore` claims, on the run's engine: one request starts per merchant and key however
/// many arrive at once on however many servers; a completed one replays, a different request under
/// the same key is a mismatch, a released key starts again, keys older than the retention
/// period are forgotten, and a claim whose holder died is taken over once, keeping the transaction
/// id it reserved, while its dead holder can no longer complete or release it.
@Suite("Store conformance: idempotency claims")
struct IdempotencyConformanceTests {
    static let mac = [UInt8](repeating: 7, count: 32)

    static let lease: TimeInterval = 60

    static func holder(_ owner: String = "claim_\(UInt64.random(in: 0...UInt64.max))", now: Date, transactionID: String = "txn_first")
        -> IdempotencyClaimHolder
    {
        IdempotencyClaimHolder(owner: owner, expiresAt: now.addingTimeInterval(lease), transactionID: transactionID)
    }

    static func claim(
        _ store: any VaultStorage, merchantID: String, key: String, mac: [UInt8] = mac, now: Date = Date(),
        holder: IdempotencyClaimHolder? = nil
    ) async throws -> IdempotencyClaim {
        try await store.claimIdempotencyKey(
            merchantID: merchantID, key: key, requestMAC: mac, legacyRequestMAC: { [] }, holder: holder ?? Self.holder(now: now), now: now)
    }

    static func complete(_ store: any VaultStorage, merchantID: String, key: String, owner: String, status: Int = 201, body: [UInt8] = [1, 2, 3])
        async throws -> Bool
    {
        try await store.completeIdempotentRequest(
            merchantID: merchantID, key: key, owner: owner, status: status, sealedBody: body, keyVersion: 1, secureCardID: nil)
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
        let now = Date()
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: now, holder: Self.holder("claim_a", now: now)) == .started)
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1") == .inProgress)
        #expect(try await Self.complete(fixture.store, merchantID: merchantID, key: "k1", owner: "claim_a"))
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
        let now = Date()
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "k1", now: now, holder: Self.holder("claim_a", now: now)) == .started)
        try await fixture.store.releaseIdempotencyKey(merchantID: fixture.merchantID, key: "k1", owner: "claim_a")
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32)) == .started)
    }

    @Test func keysOlderThanTheRetentionAreForgottenAndNewerOnesKept() async throws {
        let fixture = try await StoreFixture()
        let now = Date()
        let then = now.addingTimeInterval(-7200)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "old", now: then, holder: Self.holder("claim_a", now: then)) == .started)
        #expect(try await Self.complete(fixture.store, merchantID: fixture.merchantID, key: "old", owner: "claim_a", status: 200, body: [9]))
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "new", now: now) == .started)
        #expect(try await fixture.store.purgeIdempotencyKeys(olderThan: now.addingTimeInterval(-3600)) == 1)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "old", mac: [UInt8](repeating: 8, count: 32)) == .started)
        #expect(try await Self.claim(fixture.store, merchantID: fixture.merchantID, key: "new") == .inProgress)
    }

    @Test func aClaimIsInProgressUntilItsHolderExpiresAndIsThenTakenOverKeepingItsReservedTransaction() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let now = Date()
        let first = Self.holder("claim_dead", now: now, transactionID: "txn_reserved")
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: now, holder: first) == .started)
        let beforeExpiry = now.addingTimeInterval(Self.lease - 1)
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: beforeExpiry) == .inProgress)

        let afterExpiry = now.addingTimeInterval(Self.lease + 1)
        let second = Self.holder("claim_live", now: afterExpiry, transactionID: "txn_other")
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: afterExpiry, holder: second)
            == .takenOver(transactionID: "txn_reserved"))
        // The new holder's lease runs from the take-over: a retry right after is in progress again.
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: afterExpiry.addingTimeInterval(1)) == .inProgress)
        // A different request under the key is still a mismatch, not a take-over.
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", mac: [UInt8](repeating: 8, count: 32), now: afterExpiry.addingTimeInterval(Self.lease * 2)) == .mismatch)

        // The dead holder, had it only stalled, can neither answer for the key nor free it.
        #expect(try await Self.complete(fixture.store, merchantID: merchantID, key: "k1", owner: "claim_dead", body: [6, 6, 6]) == false)
        try await fixture.store.releaseIdempotencyKey(merchantID: merchantID, key: "k1", owner: "claim_dead")
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: afterExpiry.addingTimeInterval(1)) == .inProgress)

        #expect(try await Self.complete(fixture.store, merchantID: merchantID, key: "k1", owner: "claim_live"))
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: afterExpiry.addingTimeInterval(Self.lease * 2))
            == .replay(status: 201, sealedBody: [1, 2, 3]))
        // A completed key is never taken over, however late the retry.
        #expect(try await Self.complete(fixture.store, merchantID: merchantID, key: "k1", owner: "claim_live", body: [7]) == false)
    }

    @Test func anAbandonedClaimFoundByTwoServersAtOnceIsTakenOverOnce() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let now = Date()
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: now, holder: Self.holder(now: now, transactionID: "txn_reserved")) == .started)
        let later = now.addingTimeInterval(Self.lease + 5)
        let claims = try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
                for index in 0..<16 {
                    let store = index % 2 == 0 ? fixture.store : second
                    group.addTask { try await Self.claim(store, merchantID: merchantID, key: "k1", now: later, holder: Self.holder(now: later, transactionID: "txn_\(index)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(claims.filter { $0 == .takenOver(transactionID: "txn_reserved") }.count == 1, "\(claims)")
        #expect(claims.filter { $0 == .inProgress }.count == 15)
    }

    @Test func aClaimAnEarlierBuildLeftWithoutAHolderIsTakenOverByTheNextRetry() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let now = Date()
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: now) == .started)
        // As a server of an earlier build claimed it: no holder, no expiry, no reserved transaction.
        #expect(try await fixture.sql.run(
            "UPDATE idempotency_keys SET owner = NULL, expires_at = NULL, transaction_id = NULL WHERE merchant_id = \(merchantID) AND key = 'k1'") == 1)
        let retry = Self.holder(now: now, transactionID: "txn_new")
        #expect(try await Self.claim(fixture.store, merchantID: merchantID, key: "k1", now: now, holder: retry) == .takenOver(transactionID: "txn_new"))
        #expect(try await Self.complete(fixture.store, merchantID: merchantID, key: "k1", owner: retry.owner))
    }
}
