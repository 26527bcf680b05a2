import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A list cursor was the table-wide row sequence in base64, so a merchant polling its own list
/// counted every merchant's cards and transactions, and could edit a cursor or carry it to another
/// list. Cursors are sealed under the merchant's cursor key, bound to the merchant and the list.
@Suite struct ListCursorTests {
    static func bytes(ofCursor cursor: String) -> [UInt8] {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return (try? Encoding.fromBase64(text)) ?? []
    }

    /// `cursor` with the character at `offset` replaced by another of the alphabet.
    static func edited(_ cursor: String, at offset: Int) -> String {
        var characters = Array(cursor)
        characters[offset] = characters[offset] == "A" ? "B" : "A"
        return String(characters)
    }

    @Test func aCursorShowsNoPositionAndIsRefusedForAnotherMerchantAnotherListOrEdited() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for index in 0..<3 {
                #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("a-\(index)", verify: false)).status == .created)
                #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminB, json: keyedCard("b-\(index)", verify: false)).status == .created)
            }
            let first = try await client.send(.get, "/v1/secure-cards?limit=1", key: fixture.adminA)
            let cursor = try #require(first.json["nextCursor"] as? String)

            // Opaque: no readable position, and the same position twice gives unrelated cursors.
            #expect(!String(decoding: Self.bytes(ofCursor: cursor), as: UTF8.self).hasPrefix("c1:"))
            let again = try await client.send(.get, "/v1/secure-cards?limit=1", key: fixture.adminA)
            let againCursor = try #require(again.json["nextCursor"] as? String)
            #expect(againCursor != cursor)

            // The merchant's own cursor on its own list continues it.
            let second = try await client.send(.get, "/v1/secure-cards?limit=1&cursor=\(cursor)", key: fixture.adminA)
            #expect(second.status == .ok)
            #expect((second.json["data"] as? [[String: Any]])?.compactMap { $0["merchantReference"] as? String } == ["a-1"])

            var refused: [(String, String)] = [
                (fixture.adminB, "/v1/secure-cards?limit=1&cursor=\(cursor)"),
                (fixture.adminA, "/v1/audit-events?limit=1&cursor=\(cursor)"),
                (fixture.adminA, "/v1/schedules?limit=1&cursor=\(cursor)"),
                (fixture.adminA, "/v1/transactions?limit=1&cursor=\(cursor)"),
            ]
            for offset in [0, cursor.count / 2, cursor.count - 2] {
                refused.append((fixture.adminA, "/v1/secure-cards?limit=1&cursor=\(Self.edited(cursor, at: offset))"))
            }
            // A cursor forged in the earlier form, naming a row sequence of the caller's choice.
            let forged = Encoding.base64(Array("c1:2".utf8)).replacingOccurrences(of: "=", with: "")
            refused.append((fixture.adminA, "/v1/secure-cards?limit=1&cursor=\(forged)"))
            for (key, uri) in refused {
                let response = try await client.send(.get, uri, key: key)
                #expect(response.status == .unprocessableContent, "\(uri): \(response.text.prefix(200))")
                #expect(response.error["code"] as? String == "invalid_cursor", "\(uri)")
                #expect(response.error["param"] as? String == "cursor")
                #expect(response.json["data"] == nil)
            }
        }
    }
}
