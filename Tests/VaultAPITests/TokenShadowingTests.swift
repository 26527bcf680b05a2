import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Cards are found by merchant reference or by token (`sc_...`): a card registered with another
/// card's token as its reference would take that card's place in `GET` and `DELETE ?purge=true`.
/// References shaped like tokens are refused, and a token always names its own card.
@Suite struct TokenShadowingTests {
    @Test func aReferenceShapedLikeATokenIsRefusedAndTheTokenStillNamesItsCard() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let victim = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("victim", verify: false))
            let token = try #require(victim.json["secureCardReference"] as? String)
            #expect(token.hasPrefix("sc_"))

            for shadow in [token, token.uppercased(), "sc_anything", "SC_other"] {
                let impostor = try await client.send(
                    .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard(shadow, number: "5555555555554444", verify: false))
                #expect(impostor.status == .unprocessableContent, "\(shadow): \(impostor.status)")
                #expect(impostor.error["code"] as? String == "reserved_prefix")
                #expect(impostor.error["param"] as? String == "merchantReference")
            }
            let renamed = try await client.send(.patch, "/v1/secure-cards/victim", key: fixture.adminA, json: #"{"merchantReference": "\#(token)"}"#)
            #expect(renamed.status.code >= 400, "a rename to a token's shape is refused too")
            #expect(try await fixture.count("secure_cards") == 1)

            let byToken = try await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(byToken.status == .ok)
            #expect(byToken.json["merchantReference"] as? String == "victim")
            #expect(byToken.json["maskedNumber"] as? String == "424242******4242")

            // A reference that merely contains the letters elsewhere is fine.
            let fine = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("disc_1", verify: false))
            #expect(fine.status == .created)
        }
    }
}
