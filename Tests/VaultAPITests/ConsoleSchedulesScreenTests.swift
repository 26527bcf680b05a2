import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport
import VaultConsole

/// The console's Schedules screen and plan builder: a support operator previews a plan drawn as
/// month calendars (nothing saved), sees the API's own validation message next to the field at
/// fault, and confirms it once however often the confirm form is sent; the schedule's lifecycle
/// (pause, resume, skip a step, cancel) goes through the API's service behind a confirmation and is
/// audited under the operator; a read-only operator is shown none of it and refused a forged post.
@Suite struct ConsoleSchedulesScreenTests {
    typealias Console = ConsoleRoutesTests

    /// A monthly plan of three steps on the 10th from January 2030, on the card `good`.
    static func plan(_ merchantID: String, amount: String = "12.50", day: String = "10") -> [(String, String)] {
        [
            ("merchant", merchantID), ("secureCardReference", ""), ("merchantReference", "good"), ("amount", amount), ("currency", "USD"),
            ("description", "Gym"), ("type", "monthly"), ("startDate", "2030-01-10"), ("day", day), ("month", ""), ("dates", ""), ("endType", "count"),
            ("endDate", ""), ("endCount", "3"), ("hour", "9"), ("minute", "0"), ("timeZone", "UTC"),
        ]
    }

    static func value(_ name: String, in page: String) throws -> String {
        let marker = "name=\"\(name)\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test func aSupportOperatorPreviewsAPlanAsCalendarsAndConfirmsItOnceEvenWhenTheConfirmIsSentTwice() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "ada", role: .support)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            let support = try await Console.signIn(client, "ada", secret: secret)
            let list = try await Console.get(client, "/console/schedules", cookie: support)
            #expect(list.status == .ok && !list.text.contains("not built yet") && list.text.contains("href=\"/console/schedules/new\""))
            let blank = try await Console.get(client, "/console/schedules/new", cookie: support)
            #expect(blank.status == .ok && blank.text.contains("action=\"/console/schedules/preview\""))
            let csrf = try Console.csrf(in: blank.text)

            let preview = try await Console.post(client, "/console/schedules/preview", [("csrf", csrf)] + Self.plan(merchant.id), cookie: support)
            #expect(preview.status == .ok)
            for date in ["2030-01-10", "2030-02-10", "2030-03-10"] {
                #expect(preview.text.contains("<td class=\"due\" data-date=\"\(date)\"><span class=\"day\">10</span>"), "\(date) marked on its calendar")
                #expect(preview.text.contains("<li>\(date): $12.50, due \(date) 09:00:00 UTC</li>"), "\(date) in the list")
            }
            #expect(preview.text.contains("<caption>January 2030</caption>") && preview.text.contains("<caption>March 2030</caption>"))
            #expect(!preview.text.contains("<caption>April 2030</caption>") && preview.text.contains("totalling <strong>$37.50</strong>"))
            #expect(try await fixture.count("schedules") == 0, "a preview saves nothing")

            let once = try Self.value("once", in: preview.text)
            let confirm = [("csrf", csrf), ("once", once)] + Self.plan(merchant.id)
            let withoutToken = try await Console.post(client, "/console/schedules/create", Array(confirm.dropFirst()), cookie: support)
            #expect(withoutToken.status == .forbidden, "no CSRF token")
            #expect(try await fixture.count("schedules") == 0)
            let created = try await Console.post(client, "/console/schedules/create", confirm, cookie: support)
            #expect(created.status == .seeOther)
            let location = try #require(created.headers[.location])
            #expect(location.hasPrefix("/console/schedules/\(merchant.id)/sch_"))
            let again = try await Console.post(client, "/console/schedules/create", confirm, cookie: support)
            #expect(again.status == .seeOther && again.headers[.location] == location, "a double submit answers the schedule created")
            let otherPlan = [("csrf", csrf), ("once", once)] + Self.plan(merchant.id, amount: "99")
            #expect(try await Console.post(client, "/console/schedules/create", otherPlan, cookie: support).status == .unprocessableContent)
            let forgedKey = [("csrf", csrf), ("once", "once_123")] + Self.plan(merchant.id)
            #expect(try await Console.post(client, "/console/schedules/create", forgedKey, cookie: support).status == .unprocessableContent)
            #expect(try await fixture.count("schedules") == 1)
            #expect(try await fixture.count("audit_events WHERE action = 'schedule.created' AND actor = 'operator:ada'") == 1)

            let id = try #require(location.split(separator: "/").last.map(String.init))
            let detail = try await Console.get(client, location, cookie: support)
            #expect(detail.status == .ok && detail.text.contains("pending_confirmation") && detail.text.contains("$12.50"))
            #expect(detail.text.contains("4242") && !detail.text.contains("4242424242424242"), "the card masked")
            #expect(detail.text.contains("<strong>Step 3</strong> · 2030-03-10 · due 2030-03-10 09:00:00 UTC"))
            let listed = try await Console.get(client, "/console/schedules?status=pending_confirmation", cookie: support)
            #expect(listed.text.contains(id))
            #expect(!(try await Console.get(client, "/console/schedules?status=active", cookie: support)).text.contains(id))
            #expect(try await Console.get(client, "/console/schedules?status=sometimes", cookie: support).status == .badRequest)
        }
    }

    @Test func aPlanTheAPIRefusesShowsTheAPIsMessageNextToItsFieldAndSavesNothing() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "ada", role: .support)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            let api = try await client.send(
                .post, "/v1/schedules/preview", key: fixture.adminA,
                json: #"{"merchantReference": "good", "amount": 1250, "currency": "USD", "type": "monthly", "startDate": "2030-01-10", "day": 40, "endType": "count", "endCount": 3}"#)
            #expect(api.status == .unprocessableContent && api.error["param"] as? String == "day")
            let message = try #require(api.error["message"] as? String)

            let support = try await Console.signIn(client, "ada", secret: secret)
            let csrf = try Console.csrf(in: try await Console.get(client, "/console/schedules/new", cookie: support).text)
            let refused = try await Console.post(client, "/console/schedules/preview", [("csrf", csrf)] + Self.plan(merchant.id, day: "40"), cookie: support)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("<p class=\"field-error\" id=\"day-error\">\(HTML.escape(message))</p>"), "the API's words, next to the field")
            #expect(refused.text.contains("id=\"day\" name=\"day\" value=\"40\" inputmode=\"numeric\" autocomplete=\"off\" aria-invalid=\"true\""))
            #expect(!refused.text.contains("name=\"once\""), "no confirm form for a refused plan")

            let unread = try await Console.post(
                client, "/console/schedules/preview", [("csrf", csrf)] + Self.plan(merchant.id, amount: "12.505", day: "tenth"), cookie: support)
            #expect(unread.status == .unprocessableContent)
            #expect(unread.text.contains("id=\"amount-error\">Give the amount per step in USD with at most 2 decimals"))
            #expect(unread.text.contains("id=\"day-error\">Give a whole number.</p>"))

            var noCard = Self.plan(merchant.id)
            noCard[2] = ("merchantReference", "missing")
            let unknown = try await Console.post(client, "/console/schedules/preview", [("csrf", csrf)] + noCard, cookie: support)
            #expect(unknown.status == .unprocessableContent && unknown.text.contains("id=\"merchantReference-error\">No live secure card with that reference."))
            #expect(try await fixture.count("schedules") == 0)
        }
    }

    @Test func theLifecycleGoesThroughAConfirmationUnderTheOperatorAndAReadOnlyOperatorIsShownNoneAndRefusedAForgedPause() async throws {
        let fixture = try await APIFixture()
        // Pausing, resuming, cancelling and skipping are admin's, as in the API.
        let supportSecret = try await Console.enrol(fixture, "ada", role: .admin)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            let created = try await client.send(
                .post, "/v1/schedules", key: fixture.adminA,
                json: #"{"merchantReference": "good", "amount": 1250, "currency": "USD", "type": "monthly", "startDate": "2030-01-10", "day": 10, "endType": "count", "endCount": 3}"#)
            let id = try #require(created.json["id"] as? String)
            let steps = try #require(created.json["steps"] as? [[String: Any]])
            let secondStep = try #require(steps[1]["id"] as? String)
            _ = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            let status = { try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["status"] as? String }
            let path = "/console/schedules/\(merchant.id)/\(id)"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, path, cookie: viewer)
            #expect(seen.status == .ok && seen.text.contains("active"))
            #expect(!seen.text.contains("\(path)/pause") && !seen.text.contains("/skip\"") && !seen.text.contains("\(path)/cancel"), "no action for read-only")
            #expect(!(try await Console.get(client, "/console/schedules", cookie: viewer)).text.contains("/console/schedules/new"))
            #expect(try await Console.get(client, "/console/schedules/new", cookie: viewer).status == .forbidden)
            let forgedPreview = try await Console.post(
                client, "/console/schedules/preview", [("csrf", try Console.csrf(in: seen.text))] + Self.plan(merchant.id), cookie: viewer)
            #expect(forgedPreview.status == .forbidden)
            let forged = try await Console.post(client, "\(path)/pause", [("csrf", try Console.csrf(in: seen.text)), ("confirm", "yes")], cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await status() == "active")

            let support = try await Console.signIn(client, "ada", secret: supportSecret)
            let page = try await Console.get(client, path, cookie: support)
            #expect(page.text.contains("action=\"\(path)/pause\"") && page.text.contains("action=\"\(path)/steps/\(secondStep)/skip\""))
            let csrf = try Console.csrf(in: page.text)
            #expect(try await Console.post(client, "\(path)/pause", [("confirm", "yes")], cookie: support).status == .forbidden, "no CSRF token")
            let asked = try await Console.post(client, "\(path)/pause", [("csrf", csrf)], cookie: support)
            #expect(asked.status == .ok && asked.text.contains(">Pause the schedule</button>") && asked.text.contains("name=\"confirm\" value=\"yes\""))
            #expect(try await status() == "active", "nothing changes before the confirmation")
            #expect(try await Console.post(client, "\(path)/pause", [("csrf", csrf), ("confirm", "yes")], cookie: support).status == .seeOther)
            #expect(try await status() == "paused")
            let twice = try await Console.post(client, "\(path)/pause", [("csrf", csrf), ("confirm", "yes")], cookie: support)
            #expect(twice.status == .conflict && twice.text.contains("The schedule is paused; pause is not allowed now."))
            #expect(try await Console.post(client, "\(path)/resume", [("csrf", csrf), ("confirm", "yes")], cookie: support).status == .seeOther)
            #expect(try await status() == "active")

            let skipAsked = try await Console.post(client, "\(path)/steps/\(secondStep)/skip", [("csrf", csrf)], cookie: support)
            #expect(skipAsked.status == .ok && skipAsked.text.contains("due 2030-02-10") && skipAsked.text.contains("<strong>$12.50</strong>"))
            #expect(try await Console.post(client, "\(path)/steps/\(secondStep)/skip", [("csrf", csrf), ("confirm", "yes")], cookie: support).status == .seeOther)
            let stepStatuses = (try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["steps"] as? [[String: Any]])?.map { $0["status"] as? String }
            #expect(stepStatuses == ["scheduled", "skipped", "scheduled"])
            #expect(try await Console.post(client, "\(path)/cancel", [("csrf", csrf), ("confirm", "yes")], cookie: support).status == .seeOther)
            #expect(try await status() == "cancelled")
            #expect(try await Console.post(client, "\(path)/explode", [("csrf", csrf), ("confirm", "yes")], cookie: support).status != .seeOther)
            #expect(try await Console.get(client, "/console/schedules/\(fixture.merchantB.id)/\(id)", cookie: support).status == .notFound)
        }
        for action in ["schedule.paused", "schedule.resumed", "schedule.step_skipped", "schedule.cancelled"] {
            #expect(try await fixture.count("audit_events WHERE action = '\(action)' AND actor = 'operator:ada'") == 1, "\(action)")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 2)
    }
}
