import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAppTestSupport

/// A card's page lists the schedules charging it, 50 a page; a support operator changes a
/// schedule's amount or card through a confirmation stating old and new, once however often the
/// confirmation is sent, through the API's `ScheduleService.change` (a move to another card makes
/// that card's first use); bad input is a 4xx that changes nothing; and every form is shown and
/// accepted only for the role the API would allow (delete, purge, pause, resume, cancel and skip
/// are admin's).
@Suite struct ConsoleScheduleChangeTests {
    typealias Console = ConsoleRoutesTests

    /// A confirmed monthly schedule of three steps from 2030-01-10 for $12.50 on the card `card`.
    static func confirmedSchedule(_ client: some TestClientProtocol, key: String, card: String) async throws -> String {
        let created = try await client.send(
            .post, "/v1/schedules", key: key,
            json: #"{"merchantReference": "\#(card)", "amount": 1250, "currency": "USD", "type": "monthly", "startDate": "2030-01-10", "day": 10, "endType": "count", "endCount": 3}"#)
        let id = try #require(created.json["id"] as? String, "\(created.text)")
        #expect(try await client.send(.post, "/v1/schedules/\(id)/confirm", key: key).status == .ok)
        return id
    }

    static func token(_ client: some TestClientProtocol, key: String, card: String) async throws -> String {
        try #require(try await client.send(.get, "/v1/secure-cards/\(card)", key: key).json["secureCardReference"] as? String)
    }

    @Test func aCardsPageListsTheSchedulesChargingItLinkedAndPagedPastFifty() async throws {
        let fixture = try await APIFixture()
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("other", verify: false))
            // Another card's schedule first: a list not filtered by card would show it on the first page.
            let elsewhere = try #require(
                try await client.send(
                    .post, "/v1/schedules", key: fixture.adminA,
                    json: #"{"merchantReference": "other", "amount": 700, "currency": "USD", "type": "delayedOnce", "startDate": "2030-01-15"}"#
                ).json["id"] as? String)
            var ids: [String] = []
            for _ in 0..<51 {
                let created = try await client.send(
                    .post, "/v1/schedules", key: fixture.adminA,
                    json: #"{"merchantReference": "good", "amount": 1500, "currency": "USD", "type": "delayedOnce", "startDate": "2030-01-15"}"#)
                ids.append(try #require(created.json["id"] as? String, "\(created.text)"))
            }
            let path = "/console/cards/\(merchant.id)/\(try await Self.token(client, key: fixture.adminA, card: "good"))"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let first = try await Console.get(client, path, cookie: viewer)
            #expect(first.status == .ok)
            #expect(!first.text.contains("not listed here yet"))
            for id in ids.prefix(50) { #expect(first.text.contains("href=\"/console/schedules/\(merchant.id)/\(id)\""), "\(id)") }
            #expect(!first.text.contains(ids[50]) && !first.text.contains(elsewhere), "the 51st is on the next page; another card's never")
            #expect(first.text.contains("$15.00") && first.text.contains("pending confirmation") && first.text.contains("delayedOnce from 2030-01-15"))
            #expect(first.text.contains("<td>2030-01-15 "), "the next step's due time, in the merchant's zone")
            let marker = "<a rel=\"next\" href=\""
            let start = try #require(first.text.range(of: marker)).upperBound
            let next = String(first.text[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            let second = try await Console.get(client, next, cookie: viewer)
            #expect(second.status == .ok && second.text.contains(ids[50]) && !second.text.contains(ids[0]) && !second.text.contains(elsewhere))
            #expect(second.text.contains("rel=\"prev\"") && !second.text.contains("rel=\"next\""))
            #expect(try await Console.get(client, path + "?cursor=abc", cookie: viewer).text.contains("not one this console links to"))
        }
    }

    @Test func aSupportOperatorChangesTheAmountOnceThroughAConfirmationAndBadInputChangesNothing() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminB, json: keyedCard("theirs", verify: false))
            let theirs = try await Self.token(client, key: fixture.adminB, card: "theirs")
            let id = try await Self.confirmedSchedule(client, key: fixture.adminA, card: "good")
            let path = "/console/schedules/\(merchant.id)/\(id)"
            let schedule = { try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json }

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let page = try await Console.get(client, path, cookie: sam)
            #expect(page.text.contains("action=\"\(path)/change\"") && page.text.contains("<label for=\"change-amount\">"))
            let csrf = try Console.csrf(in: page.text)
            let bad: [[(String, String)]] = [
                [("amount", "0")], [("amount", "0.00")], [("amount", "twelve")], [("amount", "12.505")], [("amount", "-5")], [("amount", "")],
                [("card", "nobody")], [("card", theirs)], [("card", "theirs")], [("amount", "0"), ("confirm", "yes")],
            ]
            for fields in bad {
                let refused = try await Console.post(client, "\(path)/change", [("csrf", csrf)] + fields, cookie: sam)
                #expect(refused.status == .unprocessableContent, "\(fields)")
                #expect(refused.text.contains("nothing was changed"), "\(fields): \(refused.text)")
            }
            let twelve = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("amount", "12.5")], cookie: sam)
            #expect(twelve.status == .unprocessableContent && twelve.text.contains("already has that amount"))
            #expect(try await schedule()["amount"] as? Int == 1250)

            let asked = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("amount", "20")], cookie: sam)
            #expect(asked.status == .ok)
            #expect(asked.text.contains("<td>$12.50</td>") && asked.text.contains("<strong>$20.00</strong>"), "old and new amount in the currency's format")
            #expect(try await schedule()["amount"] as? Int == 1250, "nothing changes before the confirmation")
            let once = try Console.once(in: asked.text)
            let noKey = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("amount", "20.00"), ("confirm", "yes")], cookie: sam)
            #expect(noKey.status == .unprocessableContent)
            let confirm = [("csrf", csrf), ("amount", "20.00"), ("confirm", "yes"), ("once", once)]
            let changed = try await Console.post(client, "\(path)/change", confirm, cookie: sam)
            #expect(changed.status == .seeOther && changed.headers[.location] == path)
            let after = try await schedule()
            #expect(after["amount"] as? Int == 2000)
            #expect((after["steps"] as? [[String: Any]])?.map { $0["amount"] as? Int } == [2000, 2000, 2000])
            #expect(try await Console.get(client, path, cookie: sam).text.contains("$20.00"))

            // Someone changes it again through the API; the same confirmation sent again changes nothing.
            #expect(try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"amount": 3000}"#).status == .ok)
            let again = try await Console.post(client, "\(path)/change", confirm, cookie: sam)
            #expect(again.status == .seeOther)
            #expect(try await schedule()["amount"] as? Int == 3000)
            let otherValue = try await Console.post(
                client, "\(path)/change", [("csrf", csrf), ("amount", "25"), ("confirm", "yes"), ("once", once)], cookie: sam)
            #expect(otherValue.status == .conflict, "a used key does not take another change")
            #expect(try await schedule()["amount"] as? Int == 3000)

            // A cancelled schedule offers no change and refuses one.
            #expect(try await client.send(.post, "/v1/schedules/\(id)/cancel", key: fixture.adminA).status == .ok)
            #expect(!(try await Console.get(client, path, cookie: sam).text.contains("\(path)/change")))
            let late = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("amount", "9")], cookie: sam)
            #expect(late.status == .conflict && late.text.contains("cannot be changed any more"))
        }
        #expect(try await fixture.count("audit_events WHERE action = 'schedule.changed' AND actor = 'operator:sam'") == 1)
    }

    @Test func movingAConfirmedScheduleToAnotherCardStatesBothCardsMaskedAndMakesThatCardsFirstUse() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fresh", number: "5555555555554444", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("declines", number: "4000000000000002", verify: false))
            let good = try await Self.token(client, key: fixture.adminA, card: "good")
            let fresh = try await Self.token(client, key: fixture.adminA, card: "fresh")
            let id = try await Self.confirmedSchedule(client, key: fixture.adminA, card: "good")
            let path = "/console/schedules/\(merchant.id)/\(id)"
            let card = { try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["secureCardReference"] as? String }

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let csrf = try Console.csrf(in: try await Console.get(client, path, cookie: sam).text)
            let declinedAsk = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("card", "declines")], cookie: sam)
            let declined = try await Console.post(
                client, "\(path)/change", [("csrf", csrf), ("card", "declines"), ("confirm", "yes"), ("once", try Console.once(in: declinedAsk.text))], cookie: sam)
            #expect(declined.status.code == 402 && declined.text.contains("declined"))
            #expect(try await card() == good)

            let asked = try await Console.post(client, "\(path)/change", [("csrf", csrf), ("card", fresh)], cookie: sam)
            #expect(asked.status == .ok)
            #expect(asked.text.contains("<td>visa ending 4242</td>") && asked.text.contains("<strong>mastercard ending 4444</strong> (fresh)"))
            #expect(!asked.text.contains("4242424242424242") && !asked.text.contains("5555555555554444"))
            #expect(try await ScheduleFirstUseTests.credentials(fixture, card: "fresh") == 0)
            let moved = try await Console.post(
                client, "\(path)/change", [("csrf", csrf), ("card", fresh), ("confirm", "yes"), ("once", try Console.once(in: asked.text))], cookie: sam)
            #expect(moved.status == .seeOther)
            #expect(try await card() == fresh)
            #expect(try await ScheduleFirstUseTests.credentials(fixture, card: "fresh") == 1, "the new card's first use was made")
            #expect(try await Console.get(client, path, cookie: sam).text.contains("555555******4444"))
        }
        #expect(try await fixture.count("audit_events WHERE action = 'schedule.changed' AND actor = 'operator:sam'") == 1)
    }

    @Test func eachRoleIsShownAndAllowedOnlyWhatItsRoleMayDoAndForgedPostsChangeNothing() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            let token = try await Self.token(client, key: fixture.adminA, card: "good")
            let id = try await Self.confirmedSchedule(client, key: fixture.adminA, card: "good")
            let steps = try #require(try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["steps"] as? [[String: Any]])
            let secondStep = try #require(steps[1]["id"] as? String)
            let path = "/console/schedules/\(merchant.id)/\(id)"
            let cardPath = "/console/cards/\(merchant.id)/\(token)"
            let schedule = { try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json }

            // readonly: no schedule form shown, and every forged schedule post refused.
            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, path, cookie: viewer)
            for action in ["change", "pause", "cancel"] { #expect(!seen.text.contains("\(path)/\(action)"), "\(action) is not shown to readonly") }
            #expect(!seen.text.contains("/skip\""))
            let viewerCSRF = try Console.csrf(in: seen.text)
            let viewerForged: [(String, [(String, String)])] = [
                ("\(path)/change", [("amount", "20")]), ("\(path)/pause", [("confirm", "yes")]), ("\(path)/resume", [("confirm", "yes")]),
                ("\(path)/cancel", [("confirm", "yes")]), ("\(path)/steps/\(secondStep)/skip", [("confirm", "yes")]),
            ]
            for (uri, fields) in viewerForged {
                let refused = try await Console.post(client, uri, [("csrf", viewerCSRF)] + fields, cookie: viewer)
                #expect(refused.status == .forbidden, "\(uri)")
            }

            // support: the schedule's everyday changes shown, a card's deletion and purge neither shown nor allowed.
            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let page = try await Console.get(client, path, cookie: sam)
            for action in ["change", "pause", "cancel"] { #expect(page.text.contains("\(path)/\(action)"), "\(action) is shown to support") }
            #expect(page.text.contains("/skip\""))
            let cardPage = try await Console.get(client, cardPath, cookie: sam)
            #expect(cardPage.text.contains("\(cardPath)/update") && !cardPage.text.contains("\(cardPath)/delete") && !cardPage.text.contains("\(cardPath)/purge"))
            let csrf = try Console.csrf(in: page.text)
            let forged: [(String, [(String, String)])] = [
                ("\(cardPath)/delete", [("confirm", "yes"), ("cancelSchedules", "yes")]), ("\(cardPath)/purge", [("reference", "good")]),
            ]
            for (uri, fields) in forged {
                let refused = try await Console.post(client, uri, [("csrf", csrf)] + fields, cookie: sam)
                #expect(refused.status == .forbidden, "\(uri)")
                #expect(refused.text.contains("Your role (support) cannot do this."), "\(uri)")
            }
            let after = try await schedule()
            #expect(after["status"] as? String == "active")
            #expect((after["steps"] as? [[String: Any]])?.map { $0["status"] as? String } == ["scheduled", "scheduled", "scheduled"])
            #expect(try await client.send(.get, "/v1/secure-cards/good", key: fixture.adminA).status == .ok)

            // support pauses the schedule (a customer's everyday request).
            let paused = try await Console.post(client, "\(path)/pause", [("csrf", csrf), ("confirm", "yes")], cookie: sam)
            #expect(paused.status == .seeOther || paused.status == .ok)
            #expect(try await schedule()["status"] as? String == "paused")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:sam'") == 2)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 5)
        #expect(try await fixture.count("audit_events WHERE action IN ('secure_card.deleted', 'secure_card.purged', 'schedule.cancelled')") == 0)
        #expect(try await fixture.count("audit_events WHERE action = 'schedule.paused' AND actor = 'operator:sam'") == 1)
    }
}
