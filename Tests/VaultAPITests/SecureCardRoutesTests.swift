import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

@Suite struct SecureCardRoutesTests {
    @Test func registeringAKeyedCardReturnsATokenAndMaskedData() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1", number: "4111 1111 1111 1111"))
            #expect(response.status == .created)
            let card = response.json
            #expect(card["description"] as? String == "Secure Card Saved")
            let token = try #require(card["secureCardReference"] as? String)
            #expect(token.hasPrefix("sc_") && token.count >= 3 + 26)
            #expect(card["maskedNumber"] as? String == "411111******1111")
            #expect(card["bin"] as? String == "411111")
            #expect(card["last4"] as? String == "1111")
            #expect(card["cardType"] as? String == "visa")
            #expect(card["expiryDate"] as? String == "1230")
            #expect(card["holderName"] as? String == "Ada Lovelace")
            #expect(card["entryMode"] as? String == "keyed")
            #expect((card["verification"] as? [String: Any])?["status"] as? String == "verified")
            #expect(!response.text.contains("4111111111111111"))
            #expect(!response.text.contains("\"123\""))
        }
    }

    @Test func aCardCanBeRetrievedUpdatedAndDeletedByMerchantReference() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA,
                json: keyedCard("cust-1", extra: #", "customer": {"email": "ada@example.com", "country": "GB"}"#))
            let token = try #require(created.json["secureCardReference"] as? String)

            let retrieved = try await client.send(.get, "/v1/secure-cards/cust-1", key: fixture.adminA)
            #expect(retrieved.json["description"] as? String == "Secure Card Retrieved")
            #expect(retrieved.json["secureCardReference"] as? String == token)
            #expect((retrieved.json["customer"] as? [String: Any])?["email"] as? String == "ada@example.com")

            let updated = try await client.send(
                .patch, "/v1/secure-cards/cust-1", key: fixture.adminA, json: #"{"customer": {"city": "London"}}"#)
            #expect(updated.json["description"] as? String == "Secure Card Updated")
            #expect(updated.json["secureCardReference"] as? String == token)
            let customer = updated.json["customer"] as? [String: Any]
            #expect(customer?["city"] as? String == "London")
            #expect(customer?["email"] as? String == "ada@example.com")

            let cleared = try await client.send(.patch, "/v1/secure-cards/cust-1", key: fixture.adminA, json: #"{"customer": null}"#)
            #expect(cleared.json["customer"] is NSNull)

            let newCard = try await client.send(
                .patch, "/v1/secure-cards/cust-1", key: fixture.adminA,
                json: #"{"method": "ocr", "card": {"number": "5555555555554444", "expiryDate": "0931"}}"#)
            #expect(newCard.json["secureCardReference"] as? String == token, "\(newCard.text)")
            #expect(newCard.json["last4"] as? String == "4444")
            #expect(newCard.json["entryMode"] as? String == "ocr")

            let deleted = try await client.send(.delete, "/v1/secure-cards/cust-1", key: fixture.adminA)
            #expect(deleted.json["description"] as? String == "Secure Card Deleted")
            #expect(deleted.json["secureCardReference"] is NSNull)
            let r10 = try await client.send(.get, "/v1/secure-cards/cust-1", key: fixture.adminA)
            #expect(r10.status == .notFound)

            let again = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1"))
            #expect(again.status == .created)
            #expect(again.json["secureCardReference"] as? String != token)
        }
    }

    @Test func aSecondLiveRegistrationOfAReferenceIs409() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let r11 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("dup"))
            #expect(r11.status == .created)
            let second = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("dup", number: "5555555555554444"))
            #expect(second.status == .conflict)
            #expect(second.error["param"] as? String == "merchantReference")
            let unverified = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("dup", number: "5555555555554444", verify: false))
            #expect(unverified.status == .conflict)
            #expect(unverified.error["code"] as? String == "merchant_reference_taken")
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func anotherMerchantsCardsAre404ByReferenceAndByToken() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("shared-name"))
            let token = try #require(created.json["secureCardReference"] as? String)
            let r12 = try await client.send(.get, "/v1/secure-cards/shared-name", key: fixture.adminB)
            #expect(r12.status == .notFound)
            let r13 = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminB)
            #expect(r13.status == .notFound)
            let r14 = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(r14.status == .ok)
            let r15 = try await client.send(.patch, "/v1/secure-cards/shared-name", key: fixture.adminB, json: #"{"customer": null}"#)
            #expect(r15.status == .notFound)
            let r16 = try await client.send(.delete, "/v1/secure-cards/shared-name", key: fixture.adminB)
            #expect(r16.status == .notFound)
            let list = try await client.send(.get, "/v1/secure-cards?cardReference=\(token)", key: fixture.adminB)
            #expect((list.json["data"] as? [Any])?.isEmpty == true)
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func aDeclinedVerificationIs402AndStoresNothing() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("declined", number: "4000000000000002", verify: true))
            #expect(response.status.code == 402)
            #expect(response.error["type"] as? String == "card_error")
            #expect(response.error["code"] as? String == "card_declined")
        }
        #expect(try await fixture.count("secure_cards") == 0)
        let cardEvents = try await fixture.sql.count("SELECT count(*) AS n FROM audit_events WHERE object_type = 'secure_card'")
        #expect(cardEvents == 0)
        let verification = try await fixture.sql.queryOne("SELECT type, status, decline_code FROM transactions")
        #expect(verification?["type"] == .text("verify"))
        #expect(verification?["status"] == .text("declined"))
    }

    @Test func verificationCanBeSkipped() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("unverified", number: "4000000000000002", verify: false))
            #expect(response.status == .created)
            #expect(response.json["verification"] is NSNull)
        }
    }

    @Test(arguments: [
        (#"{"merchantReference": "has space", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "merchantReference"),
        ("{\"merchantReference\": \"" + String(repeating: "x", count: 65) + "\", \"method\": \"keyed\", \"card\": {\"number\": \"4242424242424242\", \"expiryDate\": \"1230\"}}", "merchantReference"),
        (#"{"method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "merchantReference"),
        (#"{"merchantReference": 42, "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "merchantReference"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": 4242424242424242, "expiryDate": "1230"}}"#, "card.number"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424241", "expiryDate": "1230"}}"#, "card.number"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1320"}}"#, "card.expiryDate"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "0120"}}"#, "card.expiryDate"),
        (#"{"merchantReference": "a", "method": "ocr", "card": {"number": "4242424242424242", "expiryDate": "1230", "cvv": "123"}}"#, "card.cvv"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230", "cardType": "amex"}}"#, "card.cardType"),
        (#"{"merchantReference": "a", "method": "track", "track": "garbage only"}"#, "track"),
        (#"{"merchantReference": "a", "method": "emv", "emv": "5A0"}"#, "emv"),
        (#"{"merchantReference": "a", "method": "emv", "emv": "5A08411111"}"#, "emv"),
        (#"{"merchantReference": "a", "method": "swipe", "track": "x"}"#, "method"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customer": {"email": "nope"}}"#, "customer.email"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customer": {"country": "XX"}}"#, "customer.country"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customFields": [{"name": "Unknown", "value": "v"}]}"#, "customFields[0].name"),
        // Found by make contract: null where the document types a field without null was taken for absent.
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "verify": null}"#, "verify"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "track": null}"#, "track"),
        (#"{"merchantReference": "a", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customer": {"city": null}}"#, "customer.city"),
    ])
    func badRegistrationsAre422NamingTheFieldAndStoreNothing(body: String, param: String) async throws {
        let fixture = try await APIFixture()
        let auditBefore = try await fixture.count("audit_events")
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.error["param"] as? String == param)
            #expect(!response.text.contains("4242424242424242"))
        }
        #expect(try await fixture.count("secure_cards") == 0)
        #expect(try await fixture.count("audit_events") == auditBefore)
    }

    /// Found by make contract: `"track": null` in an update was taken for an absent field
    /// (200) although the document types `track` as a string; null clears only the fields documented nullable.
    @Test(arguments: [(#"{"track": null}"#, "track"), (#"{"customer": {"city": "London"}, "method": null}"#, "method"), (#"{"card": null}"#, "card"),
                      (#"{"customer": {"email": " "}}"#, "customer.email"), (#"{"customer": {"region": ""}}"#, "customer.region")])
    func nullCardDataOrABlankCustomerFieldInAnUpdateIs422NamingTheField(body: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let registered = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA,
                json: #"{"merchantReference": "null-1", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#)
            #expect(registered.status == .created)
            let response = try await client.send(.patch, "/v1/secure-cards/null-1", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.error["param"] as? String == param)
        }
    }

    @Test func aNullCustomerFieldInAnUpdateClearsThatFieldAlone() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let registered = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA,
                json: #"{"merchantReference": "clear-1", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customer": {"email": "ada@example.com", "region": "Kent", "country": "GB"}}"#)
            #expect(registered.status == .created)
            let blank = try await client.send(.patch, "/v1/secure-cards/clear-1", key: fixture.adminA, json: #"{"customer": {"region": " "}}"#)
            #expect(blank.status == .unprocessableContent)
            let unchanged = try await client.send(.get, "/v1/secure-cards/clear-1", key: fixture.adminA)
            #expect((unchanged.json["customer"] as? [String: Any])?["region"] as? String == "Kent")

            let cleared = try await client.send(
                .patch, "/v1/secure-cards/clear-1", key: fixture.adminA, json: #"{"customer": {"region": null, "city": "Dover"}}"#)
            #expect(cleared.status == .ok, "\(cleared.text)")
            let customer = try #require(cleared.json["customer"] as? [String: Any])
            #expect(customer["region"] == nil)
            #expect(customer["city"] as? String == "Dover")
            #expect(customer["email"] as? String == "ada@example.com")
            #expect(customer["country"] as? String == "GB")
            let read = try await client.send(.get, "/v1/secure-cards/clear-1", key: fixture.adminA)
            #expect((read.json["customer"] as? [String: Any])?["region"] == nil)
            #expect((read.json["customer"] as? [String: Any])?["city"] as? String == "Dover")
        }
    }

    @Test func trackAndEMVRegistrationsWork() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let track = #"%B4111111111111111^LOVELACE/ADA^3012101000000000000000000000000?;4111111111111111=30121010000000000000?"#
            let swiped = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: #"{"merchantReference": "swiped", "method": "track", "track": "\#(track)"}"#)
            #expect(swiped.status == .created)
            #expect(swiped.json["entryMode"] as? String == "track")
            #expect(swiped.json["holderName"] as? String == "ADA LOVELACE")
            let emv = "5A0841111111111111115F24033012315F200C4C4F56454C4143452F414441"
            let dipped = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: #"{"merchantReference": "dipped", "method": "emv", "emv": "\#(emv)"}"#)
            #expect(dipped.status == .created)
            #expect(dipped.json["entryMode"] as? String == "emv")
            #expect(dipped.json["expiryDate"] as? String == "1230")
        }
    }

    @Test func customFieldsFollowTheMerchantsDefinitions() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let put = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA,
                json: #"{"fields": [{"name": "ReferenceID", "required": true, "maxLength": 8}]}"#)
            #expect(put.status == .ok)
            let get = try await client.send(.get, "/v1/custom-fields", key: fixture.adminA)
            let fields = get.json["fields"] as? [[String: Any]]
            #expect(fields?.first?["name"] as? String == "ReferenceID")
            #expect(fields?.first?["maxLength"] as? Int == 8)

            let missing = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1"))
            #expect(missing.status == .unprocessableContent)
            let tooLong = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1", extra: #", "customFields": [{"name": "ReferenceID", "value": "123456789"}]"#))
            #expect(tooLong.status == .unprocessableContent)
            let good = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1", extra: #", "customFields": [{"name": "ReferenceID", "value": "R-1"}]"#))
            #expect(good.status == .created)
            #expect((good.json["customFields"] as? [[String: Any]])?.first?["value"] as? String == "R-1")

            let badDefinition = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "has space", "required": false, "maxLength": 8}]}"#)
            #expect(badDefinition.status == .unprocessableContent)
            #expect(try await client.send(.get, "/v1/custom-fields", key: fixture.adminB).json["fields"] as? [Any] != nil)
        }
    }

    @Test func purgeDestroysTheSealedDataButKeepsTheMaskedHistory() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("p1"))
            let token = try #require(created.json["secureCardReference"] as? String)
            let purged = try await client.send(.delete, "/v1/secure-cards/p1?purge=true", key: fixture.adminA)
            #expect(purged.status == .ok)
            let history = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(history.json["status"] as? String == "deleted")
            #expect(history.json["maskedNumber"] as? String == "424242******4242")
            #expect(history.json["holderName"] is NSNull)
            #expect(history.json["purgedAt"] is String)
        }
        let sealed = try await fixture.sql.queryOne("SELECT sealed_card, sealed_details FROM secure_cards")
        #expect(sealed?["sealed_card"] == .null)
        #expect(sealed?["sealed_details"] == .null)
    }

    @Test(arguments: ["purge=", "purge=1", "cancelSchedules=", "cancelSchedules=yes", "purge=TRUE"])
    func aMalformedDeleteFlagIs422AndDeletesNothing(_ query: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("p1")).status == .created)
            let refused = try await client.send(.delete, "/v1/secure-cards/p1?\(query)", key: fixture.adminA)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.error["code"] as? String == "invalid_value")
            #expect(refused.error["param"] as? String == String(query.prefix { $0 != "=" }))
            #expect(try await client.send(.get, "/v1/secure-cards/p1", key: fixture.adminA).json["status"] as? String == "active")
        }
        #expect(try await fixture.count("secure_cards WHERE sealed_card IS NOT NULL") == 1)
    }

    @Test func listsPageThroughEveryCardOnceAndSearchByText() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for index in 0..<7 {
                let r17 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("list-\(index)", verify: false))
                #expect(r17.status == .created)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.send(.get, "/v1/secure-cards?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), key: fixture.adminA)
                let data = page.json["data"] as? [[String: Any]] ?? []
                seen += data.compactMap { $0["merchantReference"] as? String }
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil
            #expect(seen == (0..<7).map { "list-\($0)" })
            let search = try await client.send(.get, "/v1/secure-cards?q=list-3", key: fixture.adminA)
            #expect((search.json["data"] as? [[String: Any]])?.compactMap { $0["merchantReference"] as? String } == ["list-3"])
            _ = try await client.send(.delete, "/v1/secure-cards/list-0", key: fixture.adminA)
            let live = try await client.send(.get, "/v1/secure-cards?limit=100", key: fixture.adminA)
            #expect((live.json["data"] as? [Any])?.count == 6)
            let all = try await client.send(.get, "/v1/secure-cards?limit=100&includeDeleted=true", key: fixture.adminA)
            #expect((all.json["data"] as? [Any])?.count == 7)
        }
    }
}
