import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// A schedule's receipt e-mail and phone are customer contact data; they are
/// sealed under the merchant's data key, never kept in the clear columns.
@Suite struct ScheduleContactSealingTests {
    static let email = "receipts.sealed@contacts.example"
    static let phone = "+44 7700 900999"

    static func columns(_ fixture: APIFixture, _ id: String) async throws -> (email: String?, phone: String?, sealed: [UInt8]?) {
        let row = try #require(try await fixture.sql.queryOne(
            """
            SELECT receipt_email, receipt_phone, sealed_contacts FROM schedules WHERE id = \(id)
            """))
        return (try row.optionalString("receipt_email"), try row.optionalString("receipt_phone"), try row.optionalBlob("sealed_contacts"))
    }

    @Test func receiptContactsAreSealedAtRestAndShownToTheMerchant() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let created = try await client.send(
                .post, "/v1/schedules", key: fixture.adminA,
                json: ScheduleRoutesTests.monthly(extra: #", "receiptEmail": "\#(Self.email)", "receiptPhone": "\#(Self.phone)""#))
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json["receiptEmail"] as? String == Self.email)
            let id = try #require(created.json["id"] as? String)
            var stored = try await Self.columns(fixture, id)
            #expect(stored.email == nil && stored.phone == nil)
            let sealed = try #require(stored.sealed)
            #expect(Data(sealed).range(of: Data(Self.email.utf8)) == nil)
            #expect(Data(sealed).range(of: Data(Self.phone.utf8)) == nil)

            let shown = try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA)
            #expect(shown.json["receiptEmail"] as? String == Self.email)
            #expect(shown.json["receiptPhone"] as? String == Self.phone)
            let listed = try await client.send(.get, "/v1/schedules", key: fixture.adminA)
            #expect(((listed.json["data"] as? [[String: Any]])?.first)?["receiptEmail"] as? String == Self.email)
            let confirmed = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            #expect(confirmed.json["receiptPhone"] as? String == Self.phone)

            let changed = try await client.send(
                .patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"receiptEmail": "new.address@contacts.example", "receiptPhone": null}"#)
            #expect(changed.json["receiptEmail"] as? String == "new.address@contacts.example")
            #expect(changed.json["receiptPhone"] is NSNull || changed.json["receiptPhone"] == nil)
            stored = try await Self.columns(fixture, id)
            #expect(stored.email == nil && stored.phone == nil && stored.sealed != nil)

            // `keys rotate --data` re-encrypts them, so the old data key is no longer needed.
            #expect(try await fixture.runtime.merchants.rotateDataKey(merchantID: fixture.merchantA.id, actor: "test") == 2)
            #expect(try await fixture.runtime.schedules.resealContacts(merchantID: fixture.merchantA.id) == 1)
            #expect(try await fixture.runtime.schedules.resealContacts(merchantID: fixture.merchantA.id) == 0)
            #expect(try await Self.columns(fixture, id).sealed.flatMap(Keyring.keyVersion(ofSealedRecord:)) == 2)
            let rotated = try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA)
            #expect(rotated.json["receiptEmail"] as? String == "new.address@contacts.example")
        }
    }

    /// Rows written before sealing keep their contacts in the clear columns until the start-up pass
    /// seals them; afterwards nothing is in the clear and the merchant still sees them.
    @Test func clearContactsFromBeforeAreSealedAtStartUp() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly())
            let id = try #require(created.json["id"] as? String)
            try await fixture.sql.run(
                """
                UPDATE schedules SET receipt_email = \(Self.email), receipt_phone = \(Self.phone), sealed_contacts = NULL WHERE id = \(id)
                """)
            #expect(try await fixture.runtime.schedules.sealLegacyContacts() == 1)
            #expect(try await fixture.runtime.schedules.sealLegacyContacts() == 0)
            let stored = try await Self.columns(fixture, id)
            #expect(stored.email == nil && stored.phone == nil && stored.sealed != nil)
            let shown = try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA)
            #expect(shown.json["receiptEmail"] as? String == Self.email)
            #expect(shown.json["receiptPhone"] as? String == Self.phone)
        }
    }
}
