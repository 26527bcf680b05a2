import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's capture and void: offered on an authorization's page to support and admin only,
/// each behind a confirmation stating the amount and currency, done through the API's
/// `TransactionService` calls and audited under the operator; a read-only operator's forged post
/// and a bad amount change nothing.
@Suite struct ConsoleTransactionActionsTests {
    typealias Console = ConsoleRoutesTests

    @Test func anAuthorizationIsCapturedAndAnotherVoidedAfterConfirmationsStatingAmountAndCurrencyAndAReadOnlyOperatorCannot() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            let first = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 5000, type: "authorize"))
            let second = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 7500, type: "authorize"))
            #expect(first.status == .created && second.status == .created)
            let captured = try #require(first.json["id"] as? String)
            let voided = try #require(second.json["id"] as? String)
            let capturePath = "/console/transactions/\(fixture.merchantA.id)/\(captured)"
            let voidPath = "/console/transactions/\(fixture.merchantA.id)/\(voided)"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, voidPath, cookie: viewer)
            #expect(seen.status == .ok)
            #expect(!seen.text.contains(voidPath + "/void") && !seen.text.contains(voidPath + "/capture"), "no forms for a read-only operator")
            let viewerCSRF = try Console.csrf(in: seen.text)
            #expect(try await Console.post(client, voidPath + "/void", [("csrf", viewerCSRF), ("confirm", "yes")], cookie: viewer).status == .forbidden)
            #expect(
                try await Console.post(client, capturePath + "/capture", [("csrf", viewerCSRF), ("amount", "50"), ("confirm", "yes")], cookie: viewer).status
                    == .forbidden)
            #expect(try await fixture.count("transactions WHERE type IN ('void', 'capture')") == 0)

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let detail = try await Console.get(client, capturePath, cookie: sam)
            #expect(detail.text.contains(capturePath + "/capture") && detail.text.contains(capturePath + "/void"))
            #expect(!detail.text.contains(capturePath + "/refund"), "an authorization is captured or voided, not refunded")
            let csrf = try Console.csrf(in: detail.text)
            #expect(try await Console.post(client, capturePath + "/capture", [("amount", "20"), ("confirm", "yes")], cookie: sam).status == .forbidden)
            let bad = try await Console.post(client, capturePath + "/capture", [("csrf", csrf), ("amount", "20.001")], cookie: sam)
            #expect(bad.status == .unprocessableContent)
            let confirmCapture = try await Console.post(client, capturePath + "/capture", [("csrf", csrf), ("amount", "20")], cookie: sam)
            #expect(confirmCapture.status == .ok)
            #expect(confirmCapture.text.contains("Capture <strong>$20.00</strong> (USD)"))
            #expect(try await fixture.count("transactions WHERE type = 'capture'") == 0, "nothing is captured before the confirmation")
            let capture = try await Console.post(
                client, capturePath + "/capture", [("csrf", csrf), ("amount", "20"), ("confirm", "yes"), ("once", try Console.once(in: confirmCapture.text))],
                cookie: sam)
            #expect(capture.status == .seeOther)
            #expect(try await fixture.count("transactions WHERE type = 'capture' AND amount = 2000") == 1)

            let confirmVoid = try await Console.post(client, voidPath + "/void", [("csrf", csrf)], cookie: sam)
            #expect(confirmVoid.status == .ok)
            #expect(confirmVoid.text.contains("Void <strong>$75.00</strong> (USD)"))
            #expect(try await fixture.count("transactions WHERE type = 'void'") == 0, "nothing is voided before the confirmation")
            let void = try await Console.post(client, voidPath + "/void", [("csrf", csrf), ("confirm", "yes"), ("once", try Console.once(in: confirmVoid.text))], cookie: sam)
            #expect(void.status == .seeOther)
            #expect(try await fixture.count("transactions WHERE type = 'void'") == 1)
            #expect(try await fixture.count("transactions WHERE id = '\(voided)' AND status = 'voided'") == 1)
            let confirmAgain = try await Console.post(client, voidPath + "/void", [("csrf", csrf)], cookie: sam)
            let again = try await Console.post(
                client, voidPath + "/void", [("csrf", csrf), ("confirm", "yes"), ("once", try Console.once(in: confirmAgain.text))], cookie: sam)
            #expect(again.status == .unprocessableContent, "the service refuses a second void; the page says why")
        }
        #expect(try await fixture.count("audit_events WHERE actor = 'operator:sam' AND object_type = 'transaction'") >= 2)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 2)
    }
}
