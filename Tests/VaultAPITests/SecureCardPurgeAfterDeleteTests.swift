import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A card deleted logically can be purged (crypto-shredded) afterwards, by its
/// merchantReference (the most recently deleted card of that reference still holding data) or by its
/// token; it used to be a 404 (only live cards could be deleted).
@Suite struct SecureCardPurgeAfterDeleteTests {
    @Test(arguments: [false, true])
    func aDeletedCardIsPurgedLater(byToken: Bool) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("gone-1", verify: false))
            let token = try #require(created.json["secureCardReference"] as? String)
            #expect(try await client.send(.delete, "/v1/secure-cards/gone-1", key: fixture.adminA).status == .ok)
            let deleted = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(deleted.json["holderName"] as? String == "Ada Lovelace")

            let purged = try await client.send(.delete, "/v1/secure-cards/\(byToken ? token : "gone-1")?purge=true", key: fixture.adminA)
            #expect(purged.status == .ok, "\(purged.text)")
            #expect(purged.json["deletedReference"] as? String == token)
            #expect(purged.json["purgedAt"] is String)
            let history = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(history.json["status"] as? String == "deleted")
            #expect(history.json["holderName"] is NSNull)
            #expect(history.json["maskedNumber"] as? String == "424242******4242")
            #expect(try await client.send(.delete, "/v1/secure-cards/gone-1?purge=true", key: fixture.adminA).status == .notFound)
        }
        #expect(try await fixture.count("secure_cards WHERE sealed_card IS NOT NULL OR sealed_details IS NOT NULL") == 0)
        #expect(try await fixture.count("audit_events WHERE action = 'secure_card.purged'") == 1)
    }

    @Test func aLiveCardOfTheSameReferenceIsTheOneDeletedAndOtherCardsAreUntouched() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let first = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("again", verify: false))
            let oldToken = try #require(first.json["secureCardReference"] as? String)
            #expect(try await client.send(.delete, "/v1/secure-cards/again", key: fixture.adminA).status == .ok)
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("again", verify: false)).status == .created)
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("other", verify: false)).status == .created)
            let purged = try await client.send(.delete, "/v1/secure-cards/again?purge=true", key: fixture.adminA)
            #expect(purged.json["deletedReference"] as? String != oldToken)
            #expect(try await client.send(.get, "/v1/secure-cards/\(oldToken)", key: fixture.adminA).json["holderName"] as? String == "Ada Lovelace")
            #expect(try await client.send(.get, "/v1/secure-cards/other", key: fixture.adminA).json["status"] as? String == "active")
        }
    }

    @Test(arguments: ["never-was?purge=true", "sc_unknown?purge=true", "gone-2", "gone-2?purge=yes"])
    func withoutALiveOrUnpurgedCardOrWithoutPurgeNothingChanges(_ path: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("gone-2", verify: false)).status == .created)
            #expect(try await client.send(.delete, "/v1/secure-cards/gone-2", key: fixture.adminA).status == .ok)
            let response = try await client.send(.delete, "/v1/secure-cards/\(path)", key: fixture.adminA)
            #expect([.notFound, .unprocessableContent].contains(response.status), "\(path): \(response.text)")
            #expect(try await client.send(.delete, "/v1/secure-cards/gone-2?purge=true", key: fixture.adminB).status == .notFound)
        }
        #expect(try await fixture.count("secure_cards WHERE sealed_card IS NOT NULL") == 1)
    }
}
