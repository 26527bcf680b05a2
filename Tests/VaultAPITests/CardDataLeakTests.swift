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

/// Registers cards of every brand through the live server, then scans the stored bytes of every
/// row (both engines), the SQLite file and its WAL (SQLite) and every captured log line for the
/// PANs and CVVs used.
@Suite struct CardDataLeakTests {
    static let cards: [(pan: String, cvv: String)] = [
        ("4242424242424242", "314"), ("4111111111111111", "271"), ("5555555555554444", "828"), ("2223003122003222", "182"),
        ("378282246310005", "8459"), ("6011111111111117", "635"), ("3530111333300000", "909"), ("36227206271667", "777"),
        ("6200000000000005", "246"), ("2200000000000004", "951"),
    ]

    /// The PAN with its last digit changed: a single-digit change always fails the Luhn check.
    static func luhnBroken(_ pan: String) -> String {
        let last = Int(String(pan.last!))!
        return String(pan.dropLast()) + String((last + 1) % 10)
    }

    @Test func noPANOrCVVReachesTheDatabaseItsWALOrTheLogs() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for (index, card) in Self.cards.enumerated() {
                let response = try await client.send(
                    .post, "/v1/secure-cards", key: fixture.adminA,
                    json: keyedCard("leak-\(index)", number: card.pan, cvv: card.cvv),
                    headers: [.init("Idempotency-Key")!: "leak-\(index)"])
                #expect(response.status == .created, "\(response.text)")
                _ = try await client.send(.get, "/v1/secure-cards/leak-\(index)", key: fixture.adminA)
                _ = try await client.send(.patch, "/v1/secure-cards/leak-\(index)", key: fixture.adminA, json: #"{"customer": {"city": "Paris"}}"#)
                let bad = try await client.send(
                    .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("bad-\(index)", number: Self.luhnBroken(card.pan), cvv: card.cvv))
                #expect(bad.status == .unprocessableContent)
                #expect(!bad.text.contains(card.pan))
            }
        }
        // SQLite: the database file and its WAL (freed pages too); either engine: every row's values.
        var stored: [(String, Data)] = []
        if fixture.runtime.store is SQLiteStore {
            for file in ["vault.sqlite", "vault.sqlite-wal"].map({ fixture.directory.file($0) }) {
                if let data = FileManager.default.contents(atPath: file) { stored.append((file, data)) }
            }
            #expect(!stored.isEmpty)
        }
        let rows = try await fixture.sql.everyTableAsBytes()
        #expect(rows.contains { $0.table == "secure_cards" && $0.bytes.count > 1000 })
        stored += rows.map { ("table \($0.table)", Data($0.bytes)) }
        for (file, data) in stored {
            for card in Self.cards {
                #expect(data.range(of: Data(card.pan.utf8)) == nil, "PAN ending \(card.pan.suffix(4)) found in \(file)")
                let grouped = stride(from: 0, to: card.pan.count, by: 4).map { card.pan.dropFirst($0).prefix(4) }.joined(separator: " ")
                #expect(data.range(of: Data(grouped.utf8)) == nil)
            }
        }
        let logs = fixture.logText
        #expect(!logs.isEmpty)
        for card in Self.cards {
            #expect(!logs.contains(card.pan), "PAN ending \(card.pan.suffix(4)) found in logs")
            #expect(!logs.contains("\"\(card.cvv)\""))
            #expect(!logs.contains("cvv: \(card.cvv)"))
        }
        let cvvs = try await fixture.sql.query("SELECT verification FROM secure_cards").compactMap { try $0.optionalString("verification") }
        // As a JSON value: a quoted string or a bare number. (Not any text ending in the digits: a
        // random gateway transaction id such as `sbx_…f635` ends in a CVV's digits now and then.)
        let verifications = cvvs.joined()
        for card in Self.cards {
            for shape in ["\"\(card.cvv)\"", ":\(card.cvv),", ":\(card.cvv)}"] { #expect(!verifications.contains(shape)) }
        }
    }
}
