import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import StorageTestSupport
import Vault
import VaultSQLite
@testable import VaultApp
@testable import VaultAppTestSupport

/// A destroyed data key leaves no copy in the database's files: the write-ahead log still held the
/// key row's page as it was before the erasure, beside the old sealed records that key opens.
@Suite struct DestroyedKeyCopiesTests {
    static func wrappedDataKey(_ fixture: APIFixture, version: Int) async throws -> [UInt8]? {
        let row = try #require(try await fixture.sql.queryOne(
            """
            SELECT wrapped_key FROM merchant_keys WHERE merchant_id = \(fixture.merchantA.id) AND purpose = 'data' AND version = \(version)
            """))
        return try row.optionalBlob("wrapped_key")
    }

    /// The database and log files' bytes together (SQLite).
    static func onDisk(_ fixture: APIFixture) -> Data {
        [fixture.directory.file("vault.sqlite"), fixture.directory.file("vault.sqlite-wal")]
            .reduce(into: Data()) { $0.append((try? Data(contentsOf: URL(fileURLWithPath: $1))) ?? Data()) }
    }

    /// Registers one card of merchant A over HTTP, so its data key has sealed a record.
    static func registerCard(_ fixture: APIFixture, _ reference: String) async throws {
        try await fixture.live { client in
            let card = HolderNameSearchTests.card(reference, holder: "Grace Hopper")
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: card)
            #expect(response.status == .created)
        }
    }

    @Test func reSealingUnderTheNewestDataKeyDestroysTheOldOneAndDropsTheEnginesCopiesOfIt() async throws {
        let fixture = try await APIFixture()
        try await Self.registerCard(fixture, "wal-1")
        let old = try #require(try await Self.wrappedDataKey(fixture, version: 1))
        if TestEngine.current == .sqlite {
            #expect(Self.onDisk(fixture).range(of: Data(old)) != nil, "the wrapped key must be on disk for the test to mean anything")
        }

        #expect(try await fixture.runtime.merchants.rotateDataKey(merchantID: fixture.merchantA.id, actor: "test") == 2)
        let done = try await fixture.runtime.resealUnderNewestDataKey(merchantID: fixture.merchantA.id, actor: "test")
        #expect(done.cards == 1)
        #expect(done.destroyedVersions == [1])
        #expect(done.destroyedKeyCopiesDiscarded)
        #expect(try await Self.wrappedDataKey(fixture, version: 1) == nil)
        if TestEngine.current == .sqlite {
            #expect(Self.onDisk(fixture).range(of: Data(old)) == nil, "the destroyed key survived in the database's files")
        }

        // Nothing left to destroy: the engine is not asked to rewrite anything.
        let again = try await fixture.runtime.resealUnderNewestDataKey(merchantID: fixture.merchantA.id, actor: "test")
        #expect(again == DataKeyReseal())
    }

    @Test func offBoardingDestroysTheMerchantsKeysAndDropsTheEnginesCopiesOfThem() async throws {
        let fixture = try await APIFixture()
        try await Self.registerCard(fixture, "wal-2")
        let wrapped = try await fixture.sql.query("SELECT wrapped_key FROM merchant_keys WHERE merchant_id = \(fixture.merchantA.id)")
            .compactMap { try $0.optionalBlob("wrapped_key") }
        #expect(!wrapped.isEmpty)
        if TestEngine.current == .sqlite {
            #expect(wrapped.allSatisfy { Self.onDisk(fixture).range(of: Data($0)) != nil }, "the wrapped keys must be on disk for the test to mean anything")
        }

        let done = try await fixture.runtime.offboard(merchantNamed: fixture.merchantA.name, actor: "test")
        #expect(done.destroyedKeyCopiesDiscarded)
        #expect(try await fixture.sql.count(
            "SELECT count(*) FROM merchant_keys WHERE merchant_id = \(fixture.merchantA.id) AND wrapped_key IS NOT NULL") == 0)
        if TestEngine.current == .sqlite {
            #expect(wrapped.allSatisfy { Self.onDisk(fixture).range(of: Data($0)) == nil }, "a destroyed key survived in the database's files")
        }
        // Another merchant's keys are kept.
        #expect(try await fixture.sql.count(
            "SELECT count(*) FROM merchant_keys WHERE merchant_id = \(fixture.merchantB.id) AND wrapped_key IS NOT NULL") > 0)
    }
}
