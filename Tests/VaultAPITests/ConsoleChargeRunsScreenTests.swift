import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Scheduler
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's Charge runs screen: every run of the merchants the operator may see, newest first,
/// with its summary; an admin starts a dry run and then the run behind a confirmation naming the
/// merchant and the as-of instant, through the API's starter (one running run per merchant); a
/// running run's page reloads itself without script; a read-only operator is shown no start form
/// and refused a forged post that starts nothing.
@Suite struct ConsoleChargeRunsScreenTests {
    typealias Console = ConsoleRoutesTests

    static func runID(_ response: TestResponse) throws -> String {
        let location = try #require(response.headers[.location])
        return try #require(location.split(separator: "/").last.map(String.init))
    }

    @Test func anAdminStartsADryRunThenTheRunAfterConfirmingMerchantAndAsOfAndAReadOnlyOperatorCannot() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        let merchant = fixture.merchantA
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            _ = try await ChargeRunRoutesTests.dueToday(client, fixture, card: "good", amount: 4200)

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, "/console/charge-runs", cookie: viewer)
            #expect(seen.status == .ok)
            #expect(seen.text.contains("No charge run yet.") && !seen.text.contains("not built yet"))
            #expect(!seen.text.contains("/console/charge-runs/start"), "no start form for a read-only operator")
            let forged = try await Console.post(
                client, "/console/charge-runs/start",
                [("csrf", try Console.csrf(in: seen.text)), ("merchant", merchant.id), ("mode", "real"), ("confirm", "yes")], cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await fixture.count("charge_runs") == 0)

            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let list = try await Console.get(client, "/console/charge-runs", cookie: admin)
            #expect(list.text.contains("action=\"/console/charge-runs/start\"") && list.text.contains(">Start a dry run</button>"))
            let csrf = try Console.csrf(in: list.text)

            for (fields, status) in [
                ([("merchant", "mer_missing"), ("mode", "dry")], HTTPResponse.Status.unprocessableContent),
                ([("merchant", merchant.id), ("mode", "sometimes")], .unprocessableContent),
                ([("merchant", merchant.id), ("mode", "dry"), ("asOf", "yesterday")], .unprocessableContent),
                ([("merchant", merchant.id), ("mode", "dry"), ("asOf", Timestamp.string(Date().addingTimeInterval(86_400))), ("confirm", "yes")],
                 .unprocessableContent),
            ] {
                let refused = try await Console.post(client, "/console/charge-runs/start", [("csrf", csrf)] + fields, cookie: admin)
                #expect(refused.status == status, "\(fields)")
            }
            #expect(try await fixture.count("charge_runs") == 0, "bad input starts nothing")

            let confirm = try await Console.post(client, "/console/charge-runs/start", [("csrf", csrf), ("merchant", merchant.id), ("mode", "dry")], cookie: admin)
            #expect(confirm.status == .ok)
            #expect(confirm.text.contains("dry run") && confirm.text.contains(merchant.name) && confirm.text.contains(" UTC</strong>"))
            #expect(try await fixture.count("charge_runs") == 0, "nothing starts before the confirmation")
            let asOf = try #require(confirm.text.range(of: #"name="asOf" value=""#).map { String(confirm.text[$0.upperBound...].prefix { $0 != "\"" }) })
            let startedDry = try await Console.post(
                client, "/console/charge-runs/start", [("csrf", csrf), ("merchant", merchant.id), ("mode", "dry"), ("asOf", asOf), ("confirm", "yes")],
                cookie: admin)
            #expect(startedDry.status == .seeOther)
            let dryID = try Self.runID(startedDry)
            #expect(startedDry.headers[.location] == "/console/charge-runs/\(merchant.id)/\(dryID)")
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: dryID)
            let dryPage = try await Console.get(client, "/console/charge-runs/\(merchant.id)/\(dryID)", cookie: admin)
            #expect(dryPage.text.contains("Dry run: nothing charged") && dryPage.text.contains("completed"))
            #expect(dryPage.text.contains("1 ($42.00)"), "the step due, in the currency's own format")
            #expect(!dryPage.text.contains("http-equiv=\"refresh\""), "a finished run's page does not reload")
            #expect(dryPage.text.contains(">Start the run</button>"))
            #expect(try await fixture.count("transactions WHERE step_id IS NOT NULL") == 0)
            let viewerPage = try await Console.get(client, "/console/charge-runs/\(merchant.id)/\(dryID)", cookie: viewer)
            #expect(viewerPage.status == .ok && !viewerPage.text.contains("Start the run"))
            #expect(try await Console.get(client, "/console/charge-runs/\(fixture.merchantB.id)/\(dryID)", cookie: admin).status == .notFound)

            let confirmReal = try await Console.post(
                client, "/console/charge-runs/start", [("csrf", csrf), ("merchant", merchant.id), ("mode", "real"), ("asOf", asOf)], cookie: admin)
            #expect(confirmReal.status == .ok && confirmReal.text.contains("the run (due steps are charged)"))
            let startedReal = try await Console.post(
                client, "/console/charge-runs/start", [("csrf", csrf), ("merchant", merchant.id), ("mode", "real"), ("asOf", asOf), ("confirm", "yes")],
                cookie: admin)
            #expect(startedReal.status == .seeOther)
            let realID = try Self.runID(startedReal)
            let finished = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: realID)
            #expect(finished["status"] as? String == "completed")
            #expect(try await fixture.count("transactions WHERE step_id IS NOT NULL") == 1)

            let runs = try await Console.get(client, "/console/charge-runs", cookie: viewer)
            let realAt = try #require(runs.text.range(of: realID)), dryAt = try #require(runs.text.range(of: dryID))
            #expect(realAt.lowerBound < dryAt.lowerBound, "newest first")
            #expect(runs.text.contains("operator:root-ops") && runs.text.contains("1 approved ($42.00)"))

            // A run still running: its page reloads itself, and no second run of the merchant starts.
            let running = ChargeRunRecord(
                id: "run_stillrunning", merchantID: merchant.id, status: .running, asOf: Date(), dryRun: false, startedBy: "cli", startedAt: Date(),
                owner: RunnerIdentity.process)
            #expect(
                try await fixture.runtime.store.insertChargeRun(
                    running, audit: AuditEntry(merchantID: merchant.id, actor: "cli", action: "charge_run.started", objectType: "charge_run", objectID: running.id),
                    unlessRunningSince: Date().addingTimeInterval(-3600)) == nil)
            let runningPage = try await Console.get(client, "/console/charge-runs/\(merchant.id)/run_stillrunning", cookie: viewer)
            #expect(runningPage.text.contains("<meta http-equiv=\"refresh\" content=\"5\">"))
            #expect(!runningPage.text.contains("<script") && !runningPage.text.contains("style="))
            let conflict = try await Console.post(
                client, "/console/charge-runs/start", [("csrf", csrf), ("merchant", merchant.id), ("mode", "dry"), ("confirm", "yes")], cookie: admin)
            #expect(conflict.status == .conflict && conflict.text.contains("run_stillrunning"))
        }
        #expect(try await fixture.count("charge_runs") == 3)
        #expect(try await fixture.count("audit_events WHERE action = 'charge_run.started' AND actor = 'operator:root-ops'") == 2)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
    }
}
