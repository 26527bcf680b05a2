import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's transaction search: the filters `GET /v1/transactions` reads, read by the same
/// `TransactionFilter(query:zone:)`, bad filter input a message (400) that searches nothing; and
/// more than 50 rows paged by "Next" and "Previous" links carrying the cursor.
@Suite struct ConsoleTransactionSearchTests {
    typealias Console = ConsoleRoutesTests

    /// The `href` of the paging link `rel` (`next`, `prev`), unescaped; nil when the page has none.
    static func link(_ rel: String, in page: String) -> String? {
        guard let start = page.range(of: "rel=\"\(rel)\" href=\"")?.upperBound else { return nil }
        return String(page[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func theFiltersAreTheAPIsAndBadFilterInputIsAMessageNotAnError() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("order-5", verify: false))
            let token = try #require(card.json["secureCardReference"] as? String)
            let small = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1250))
            let large = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA,
                json: #"{"type": "sale", "amount": 99900, "currency": "USD", "secureCardReference": "\#(token)"}"#)
            #expect(small.status == .created && large.status == .created)
            let smallID = try #require(small.json["id"] as? String)
            let largeID = try #require(large.json["id"] as? String)
            let viewer = try await Console.signIn(client, "viewer", secret: secret)

            let ranged = try await Console.get(client, "/console/transactions?minAmount=10&maxAmount=20.00&currency=USD", cookie: viewer)
            #expect(ranged.status == .ok)
            #expect(ranged.text.contains(smallID) && !ranged.text.contains(largeID))
            let byCard = try await Console.get(client, "/console/transactions?secureCardReference=\(token)", cookie: viewer)
            #expect(byCard.text.contains(largeID) && !byCard.text.contains(smallID))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = fixture.merchantA.zone
            formatter.dateFormat = "yyyy-MM-dd"
            let today = formatter.string(from: Date())
            let dated = try await Console.get(client, "/console/transactions?from=\(today)&to=\(today)&status=approved&type=sale", cookie: viewer)
            #expect(dated.text.contains(smallID) && dated.text.contains(largeID))
            let later = try await Console.get(client, "/console/transactions?from=2099-01-01", cookie: viewer)
            #expect(later.status == .ok && later.text.contains("No transaction matches."))

            let refusals: [(String, String)] = [
                ("minAmount=10", "Choose the currency"), ("minAmount=ten&currency=USD", "The minimum amount is an amount in USD"),
                ("from=2026-13-01", "from must be a date, yyyy-MM-dd"), ("from=2030-01-02&to=2030-01-01", "to must not be before from."),
                ("currency=usd", "currency must be an upper-case ISO 4217 currency code."),
                ("minAmount=20&maxAmount=10&currency=USD", "maxAmount must not be below minAmount."),
                ("status=settled", "status is not a transaction status."), ("cursor=abc", "not one this console links to"),
                ("q=4111111111111111", "never a whole card number"),
            ]
            for (query, message) in refusals {
                let refused = try await Console.get(client, "/console/transactions?\(query)", cookie: viewer)
                #expect(refused.status == .badRequest, "\(query)")
                #expect(refused.text.contains(message), "\(query)")
                #expect(!refused.text.contains(smallID), "\(query): nothing is searched")
            }
        }
    }

    @Test func moreThanFiftyTransactionsArePagedByNextAndPreviousLinksCarryingTheCursor() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            // Row n is a sale of $10.00 + n cents, of merchant A when n is even and of merchant B when odd.
            for number in 0..<53 {
                let sale = try await client.send(
                    .post, "/v1/transactions", key: number.isMultiple(of: 2) ? fixture.adminA : fixture.adminB,
                    json: TransactionRoutesTests.rawSale(amount: 1000 + number))
                #expect(sale.status == .created)
            }
            let viewer = try await Console.signIn(client, "viewer", secret: secret)
            let first = try await Console.get(client, "/console/transactions", cookie: viewer)
            #expect(first.status == .ok)
            #expect(first.text.components(separatedBy: ">$10.").count - 1 == 50)
            #expect(first.text.contains(">$10.52<") && first.text.contains(">$10.03<") && !first.text.contains(">$10.02<"))
            #expect(Self.link("prev", in: first.text) == nil)
            let next = try #require(Self.link("next", in: first.text))
            #expect(next.hasPrefix("/console/transactions?cursor="))

            let second = try await Console.get(client, next, cookie: viewer)
            #expect(second.status == .ok)
            #expect(second.text.components(separatedBy: ">$10.").count - 1 == 3, "the rows of both merchants after the first 50, none twice")
            #expect(second.text.contains(">$10.02<") && second.text.contains(">$10.00<") && !second.text.contains(">$10.03<"))
            #expect(Self.link("next", in: second.text) == nil)
            let previous = try #require(Self.link("prev", in: second.text))
            #expect(previous == "/console/transactions")
            #expect(try await Console.get(client, previous, cookie: viewer).text.contains(">$10.52<"))

            // The filters travel with the cursor, and the next page applies them.
            let filtered = try await Console.get(client, "/console/transactions?type=sale&currency=USD&minAmount=10.01&maxAmount=11", cookie: viewer)
            #expect(filtered.text.components(separatedBy: ">$10.").count - 1 == 50)
            let more = try #require(Self.link("next", in: filtered.text))
            #expect(more.contains("type=sale") && more.contains("currency=USD") && more.contains("minAmount=10.01"))
            let rest = try await Console.get(client, more, cookie: viewer)
            #expect(rest.text.components(separatedBy: ">$10.").count - 1 == 2 && !rest.text.contains(">$10.00<"))
        }
    }

    @Test func theOtherListsArePagedPastFiftyRowsToo() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "root-ops", role: .admin)
        try await fixture.live { client in
            for number in 0..<52 {
                let card = try await client.send(
                    .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard(String(format: "bulk-%02d", number), verify: false))
                #expect(card.status == .created)
            }
            let admin = try await Console.signIn(client, "root-ops", secret: secret)
            let cards = try await Console.get(client, "/console/cards?q=bulk", cookie: admin)
            #expect(cards.text.components(separatedBy: ">bulk-").count - 1 == 50)
            #expect(cards.text.contains(">bulk-00<") && !cards.text.contains(">bulk-51<"), "cards in recording order")
            let moreCards = try await Console.get(client, try #require(Self.link("next", in: cards.text)), cookie: admin)
            #expect(moreCards.text.components(separatedBy: ">bulk-").count - 1 == 2 && moreCards.text.contains(">bulk-51<"))
            #expect(Self.link("prev", in: moreCards.text) == "/console/cards?q=bulk")

            // 52 registrations are 52 webhook events and more than 52 audit events.
            let hooks = try await Console.get(client, "/console/webhooks", cookie: admin)
            let moreHooks = try await Console.get(client, try #require(Self.link("next", in: hooks.text)), cookie: admin)
            #expect(moreHooks.status == .ok && moreHooks.text.contains("secure_card.registered") && Self.link("prev", in: moreHooks.text) != nil)
            let audit = try await Console.get(client, "/console/audit?action=secure_card.registered", cookie: admin)
            let moreAudit = try await Console.get(client, try #require(Self.link("next", in: audit.text)), cookie: admin)
            #expect(moreAudit.status == .ok && moreAudit.text.components(separatedBy: ">secure_card.registered<").count - 1 == 2)
            #expect(try await Console.get(client, "/console/charge-runs?cursor=0", cookie: admin).status == .badRequest)
            #expect(try await Console.get(client, "/console/audit?trail=1,x", cookie: admin).status == .badRequest)
        }
    }
}
