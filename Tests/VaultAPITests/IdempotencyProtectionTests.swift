import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import StorageTestSupport
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// Database-theft protections on the idempotency store itself: a keyed request MAC, sealed
/// responses that replay across data-key rotation, stored responses destroyed with their card, and
/// rows from before the change upgraded in place.
@Suite struct IdempotencyProtectionTests {
    static func key(_ name: String) -> HTTPFields { [.init("Idempotency-Key")!: name] }

    static func row(_ fixture: APIFixture, key: String) async throws -> SQLiteRow? {
        try await fixture.sql.queryOne("SELECT * FROM idempotency_keys WHERE key = \(key)")
    }

    @Test func theRequestIsAKeyedMACAndTheResponseIsSealedAndBoundToItsCard() async throws {
        let fixture = try await APIFixture()
        let body = keyedCard("idem-1", number: "4111111111111111")
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("k-1"))
            #expect(created.status == .created)
            let token = try #require(created.json["secureCardReference"] as? String)
            let row = try #require(try await Self.row(fixture, key: "k-1"))
            let fingerprint = Array(("POST /v1/secure-cards?\n" + body).utf8)
            #expect(try row.blob("request_hash").count == 32)
            #expect(try row.blob("request_hash") != Digest.sha256(fingerprint))
            #expect(try row.int("request_scheme") == 2)
            #expect(try row.int("key_version") == 1)
            #expect(try row.optionalString("secure_card_id") == token)
            let stored = try row.blob("response_body")
            #expect(Data(stored).range(of: Data("Ada Lovelace".utf8)) == nil)
            #expect(Data(stored).range(of: Data(token.utf8)) == nil)
            // The same body under another merchant's key gives another MAC (per-merchant keys).
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminB, json: body, headers: Self.key("k-1"))
            let other = try await fixture.sql.queryOne(
                "SELECT request_hash FROM idempotency_keys WHERE key = 'k-1' AND merchant_id = \(fixture.merchantB.id)")
            #expect(try other?.blob("request_hash") != row.blob("request_hash"))
            // Same key, another request: refused; same request: replayed.
            let reused = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("idem-1", number: "5555555555554444"), headers: Self.key("k-1"))
            #expect(reused.error["code"] as? String == "idempotency_key_reused")
            let replay = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("k-1"))
            #expect(replay.text == created.text)
        }
    }

    @Test func aStoredResponseReplaysAcrossDataKeyRotationAndIsResealed() async throws {
        let fixture = try await APIFixture()
        let body = keyedCard("rot-1")
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("rot"))
            #expect(created.status == .created)
            #expect(try await fixture.runtime.merchants.rotateDataKey(merchantID: fixture.merchantA.id, actor: "test") == 2)
            let before = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("rot"))
            #expect(before.status == .created)
            #expect(before.text == created.text)
            #expect(try await fixture.runtime.idempotency.resealAll(merchantID: fixture.merchantA.id) == 1)
            #expect(try await Self.row(fixture, key: "rot")?.int("key_version") == 2)
            let after = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("rot"))
            #expect(after.text == created.text)
            #expect(try await fixture.runtime.idempotency.resealAll(merchantID: fixture.merchantA.id) == 0)
        }
    }

    @Test func anEditedStoredStatusIsNotReplayed() async throws {
        let fixture = try await APIFixture()
        let body = keyedCard("edit-1")
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("edit"))
            #expect(created.status == .created)
            try await fixture.sql.run("UPDATE idempotency_keys SET status_code = 200 WHERE key = 'edit'")
            let replay = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("edit"))
            #expect(replay.status != .ok && replay.status != .created)
            #expect(!replay.text.contains("Ada Lovelace"))
        }
    }

    @Test func purgingACardDestroysEveryStoredResponseThatConcernsItAndTheKeyIsNotRunAgain() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let purged = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("p-1"), headers: Self.key("reg-p"))
            let kept = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("k-1"), headers: Self.key("reg-k"))
            let token = try #require(purged.json["secureCardReference"] as? String)
            let sale = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA,
                json: #"{"type": "sale", "amount": 500, "currency": "USD", "secureCardReference": "\#(token)"}"#, headers: Self.key("sale-p"))
            #expect(sale.status == .created, "\(sale.text)")
            #expect(try await Self.row(fixture, key: "sale-p")?.optionalString("secure_card_id") == token)
            let deleted = try await client.send(.delete, "/v1/secure-cards/p-1?purge=true", key: fixture.adminA)
            #expect(deleted.status == .ok)
            for name in ["reg-p", "sale-p"] {
                let row = try #require(try await Self.row(fixture, key: name))
                #expect(try row.optionalBlob("response_body") == nil)
                #expect(try row.optionalBlob("request_hash") ?? [] == [])
            }
            #expect(try await Self.row(fixture, key: "reg-k")?.optionalBlob("response_body") != nil)
            let retry = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("p-1"), headers: Self.key("reg-p"))
            #expect(retry.status == .conflict)
            #expect(retry.error["code"] as? String == "idempotency_response_destroyed")
            #expect(try await fixture.count("secure_cards") == 2)
            let replayKept = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("k-1"), headers: Self.key("reg-k"))
            #expect(replayKept.text == kept.text)
        }
    }

    /// A row written by the previous code (unkeyed SHA-256, clear response) is upgraded by the
    /// start-up pass: nothing unkeyed or clear is left, and the key still replays or refuses.
    @Test func legacyRowsAreUpgradedAndStillAnswer() async throws {
        let fixture = try await APIFixture()
        let body = keyedCard("legacy-1")
        let clear = #"{"description":"Secure Card Saved","holderName":"Ada Lovelace","secureCardReference":"sc_LEGACYTOKEN"}"#
        let sha = Digest.sha256(Array(("POST /v1/secure-cards?\n" + body).utf8))
        try await fixture.sql.run(
            """
            INSERT INTO idempotency_keys (merchant_id, key, request_hash, request_scheme, state, status_code, response_body, created_at)
            VALUES (\(fixture.merchantA.id), 'old', \(sha), 0, 'completed', 201, \(Array(clear.utf8)), \(Timestamp.string(Date())))
            """)
        #expect(try await fixture.runtime.idempotency.upgradeLegacyRows() == 1)
        #expect(try await fixture.runtime.idempotency.upgradeLegacyRows() == 0)
        let row = try #require(try await Self.row(fixture, key: "old"))
        #expect(try row.int("request_scheme") == 1)
        #expect(try row.blob("request_hash") != sha)
        #expect(Data(try row.blob("response_body")).range(of: Data("Ada Lovelace".utf8)) == nil)
        #expect(try row.optionalString("secure_card_id") == "sc_LEGACYTOKEN")
        try await fixture.live { client in
            let replay = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: Self.key("old"))
            #expect(replay.status == .created)
            #expect(replay.text == clear)
            let other = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("legacy-2"), headers: Self.key("old"))
            #expect(other.error["code"] as? String == "idempotency_key_reused")
        }
    }

    @Test(.sqliteOnly("reads the SQLite database and WAL files; on PostgreSQL legacyRowsAreUpgradedAndStillAnswer checks the rows"))
    func upgradingLegacyRowsLeavesNoClearResponseOrUnkeyedHashInTheWAL() async throws {
        let fixture = try await APIFixture()
        let body = keyedCard("legacy-wal")
        let clear = #"{"description":"Secure Card Saved","holderName":"Grace Hopper Legacy","secureCardReference":"sc_LEGACYWAL"}"#
        let sha = Digest.sha256(Array(("POST /v1/secure-cards?\n" + body).utf8))
        try await fixture.sql.run(
            """
            INSERT INTO idempotency_keys (merchant_id, key, request_hash, request_scheme, state, status_code, response_body, created_at)
            VALUES (\(fixture.merchantA.id), 'old-wal', \(sha), 0, 'completed', 201, \(Array(clear.utf8)), \(Timestamp.string(Date())))
            """)
        let files = [fixture.directory.file("vault.sqlite"), fixture.directory.file("vault.sqlite-wal")]
        func onDisk() -> Data { files.reduce(into: Data()) { $0.append((try? Data(contentsOf: URL(fileURLWithPath: $1))) ?? Data()) } }
        #expect(onDisk().range(of: Data("Grace Hopper Legacy".utf8)) != nil, "the legacy row must be on disk for the test to mean anything")
        try await fixture.runtime.protectLegacyRecords(logger: fixture.logger)
        #expect(onDisk().range(of: Data("Grace Hopper Legacy".utf8)) == nil, "the clear response survived the upgrade on disk")
        #expect(onDisk().range(of: Data(sha)) == nil, "the unkeyed hash survived the upgrade on disk")
    }

    @Test(arguments: [
        (#"{"id":"txn_1","secureCardReference":"sc_ABC","status":"approved"}"#, "sc_ABC"),
        (#"{"error":{"code":"card_declined"},"transaction":{"secureCardReference" : "sc_DEF"}}"#, "sc_DEF"),
        (#"{"secureCardReference":null,"transaction":{"secureCardReference":"sc_GHI"}}"#, "sc_GHI"),
        (#"{"secureCardReference":null}"#, nil),
        (#"{"error":{"code":"invalid_json"}}"#, nil),
        (#"{"secureCardReference":"not-a-token"}"#, nil),
    ] as [(String, String?)])
    func theCardAResponseConcernsIsFound(json: String, expected: String?) {
        #expect(IdempotencyService.secureCardReference(in: Array(json.utf8)) == expected)
    }
}
