import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
import VaultSQLite
@testable import VaultAppTestSupport

/// A request that meets a stored row this server cannot read (a value written by a newer build
/// sharing the database) answers a bare 500: the row is not the caller's fault, and what it holds
/// is only logged, with the row's table, id and column. The card beside it still answers.
@Suite struct UnreadableRowRoutesTests {
    @Test func aCardWithACardTypeOfANewerBuildAnswersA500AndTheLogNamesTheRow() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let newer = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("newer"))
            let reference = try #require(newer.json["secureCardReference"] as? String)
            try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("known", number: "5555555555554444"))
            try await fixture.sql.run("UPDATE secure_cards SET card_type = 'futurecard' WHERE id = \(reference)")

            let failed = try await client.send(.get, "/v1/secure-cards/newer", key: fixture.adminA)
            #expect(failed.status == .internalServerError)
            #expect(failed.error["code"] as? String == "internal_error")
            #expect(!failed.text.contains("futurecard") && !failed.text.contains(reference))
            #expect(fixture.logText.contains("row \(reference) of secure_cards: column card_type holds \"futurecard\""))

            let known = try await client.send(.get, "/v1/secure-cards/known", key: fixture.adminA)
            #expect(known.status == .ok)
            #expect(known.json["cardType"] as? String == "mastercard")
        }
    }
}
