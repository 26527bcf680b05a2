import Foundation
import GatewayFakes
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
@testable import VaultSQLite

@Suite struct WebhookDelivererTests {
    @Test func eachEventIsPostedOnceWithSignedHeadersAndTheQueuedBody() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let ids = [
            try await fixture.enqueue(.transactionApproved), try await fixture.enqueue(.schedulePastDue),
            try await fixture.enqueue(.secureCardUpdated),
        ]
        let now = WebhookDeliveryFixture.now
        let report = try await fixture.deliverer().deliverDue(now: now)
        #expect(report == WebhookDeliveryReport(delivered: 3, failed: 0, expired: 0))
        #expect(try await fixture.deliverer().deliverDue(now: now.addingTimeInterval(3600)) == WebhookDeliveryReport())
        let received = fixture.receiver.received
        #expect(received.count == 3)
        #expect(fixture.receiver.distinctEventIDs == Set(ids))
        let key = try await fixture.signingKey()
        for webhook in received {
            let id = try #require(webhook.eventID)
            let event = try #require(try await fixture.event(id))
            #expect(event.status == .delivered)
            #expect(event.attempts == 1)
            #expect(webhook.text == event.body)
            #expect(webhook.headers["content-type"] == "application/json")
            #expect(webhook.headers["user-agent"] == "vault-webhooks/1")
            #expect(webhook.headers["vault-event-type"] == event.type)
            let body = try WebhookBody.parse(webhook.body)
            #expect(body.id == id)
            #expect(body.merchantId == fixture.merchant.id)
            #expect(body.type == event.type)
            let signature = try #require(webhook.headers["vault-signature"])
            let match = try #require(signature.wholeMatch(of: /t=(\d+),v1=([0-9a-f]{64})/))
            let timestamp = try #require(Int64(match.output.1))
            #expect(abs(Double(timestamp) - now.timeIntervalSince1970) < 60)
            let expected = independentHMACSHA256(key: key, message: Array("\(timestamp).".utf8) + webhook.body)
            #expect(String(match.output.2) == Encoding.hex(expected))
            #expect(WebhookSignature.isValid(header: signature, body: webhook.body, key: key, now: now))
        }
        await fixture.tearDown()
    }

    @Test func aSealedHolderFieldIsStoredSealedAndSentOpenedUnderTheSignature() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let marker = try await WebhookFieldSeal(keyring: fixture.keyring).seal("Zoë \"O'Brien\"", merchantID: fixture.merchant.id, recordID: "txn_1")
        let id = try await fixture.enqueue(.transactionApproved, data: ["transactionId": "txn_1", "holderName": .string(marker)])
        let stored = try #require(try await fixture.event(id))
        #expect(!stored.body.contains("Brien"))
        let now = WebhookDeliveryFixture.now
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport(delivered: 1, failed: 0, expired: 0))
        let webhook = try #require(fixture.receiver.received.first)
        #expect(webhook.text.contains(#""holderName":"Zoë \"O'Brien\"""#))
        #expect(!webhook.text.contains("sealed:"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(webhook.body)) as? [String: Any])
        #expect((object["data"] as? [String: Any])?["holderName"] as? String == "Zoë \"O'Brien\"")
        let signature = try #require(webhook.headers["vault-signature"])
        #expect(WebhookSignature.isValid(header: signature, body: webhook.body, key: try await fixture.signingKey(), now: now))
        await fixture.tearDown()
    }

    @Test func failedDeliveriesOfARoundAreOneWarningPerMerchantAndReasonWithTheirCount() async throws {
        let fixture = try await WebhookDeliveryFixture()
        var ids: [String] = []
        for _ in 0..<3 { ids.append(try await fixture.enqueue()) }
        fixture.receiver.answer(503, 503, 503)
        let report = try await fixture.deliverer(concurrency: 1).deliverDue(now: WebhookDeliveryFixture.now)
        #expect(report == WebhookDeliveryReport(delivered: 0, failed: 3))
        let lines = fixture.logs.text.split(separator: "\n")
        let warnings = lines.filter { $0.hasPrefix("warning ") }
        #expect(warnings.count == 1, "\(warnings)")
        let warning = try #require(warnings.first)
        #expect(warning.hasPrefix("warning webhook deliveries failed"))
        #expect(warning.contains("\"events\": 3"), "\(warning)")
        #expect(warning.contains(fixture.merchant.id))
        #expect(warning.contains("\"code\": http 503"), "\(warning)")
        #expect(warning.contains("\"gateway\": webhook"), "\(warning)")
        // No line per event above debug: the ids are in the debug lines only.
        for id in ids {
            #expect(!lines.filter { !$0.hasPrefix("debug ") && !$0.hasPrefix("trace ") }.contains { $0.contains(id) })
        }
        await fixture.tearDown()
    }

    @Test func aFailedAttemptIsRetriedAfterItsBackoffAndCounted() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue()
        fixture.receiver.answer(500, 503)
        let deliverer = fixture.deliverer()
        let now = WebhookDeliveryFixture.now
        // The deliverer's clock runs from `now` for as long as the delivery takes: 30 s after the
        // failure, so no later than 30 s plus the time the call took, however slow the machine.
        let started = ContinuousClock.now
        #expect(try await deliverer.deliverDue(now: now) == WebhookDeliveryReport(delivered: 0, failed: 1))
        let took = WebhookDeliverySettings.seconds(ContinuousClock.now - started)
        var event = try #require(try await fixture.event(id))
        #expect(event.attempts == 1)
        #expect(event.lastError == "http 500")
        #expect(event.status == .pending)
        #expect(event.nextAttemptAt >= now.addingTimeInterval(30))
        #expect(event.nextAttemptAt <= now.addingTimeInterval(30 + took + 0.001))

        #expect(try await deliverer.deliverDue(now: now.addingTimeInterval(29)) == WebhookDeliveryReport())
        #expect(fixture.receiver.received.count == 1)

        let second = event.nextAttemptAt
        #expect(try await deliverer.deliverDue(now: second) == WebhookDeliveryReport(delivered: 0, failed: 1))
        event = try #require(try await fixture.event(id))
        #expect(event.attempts == 2)
        #expect(event.lastError == "http 503")
        #expect(event.nextAttemptAt >= second.addingTimeInterval(60))
        #expect(event.nextAttemptAt < second.addingTimeInterval(80))

        #expect(try await deliverer.deliverDue(now: event.nextAttemptAt) == WebhookDeliveryReport(delivered: 1))
        event = try #require(try await fixture.event(id))
        #expect(event.status == .delivered)
        #expect(event.attempts == 3)
        #expect(fixture.receiver.received.map(\.eventID) == [id, id, id])
        #expect(fixture.receiver.received.map { $0.headers["vault-delivery-attempt"] } == ["1", "2", "3"])
        #expect(Set(fixture.receiver.received.map(\.text)).count == 1)
        await fixture.tearDown()
    }

    @Test(arguments: [(1, 30.0), (2, 60.0), (3, 120.0), (7, 1920.0), (8, 3600.0), (40, 3600.0), (10_000, 3600.0)])
    func backoffDoublesFromTheInitialDelayUpToTheMaximum(attempt: Int, seconds: TimeInterval) {
        let settings = WebhookDeliverySettings(initialBackoff: 30, maxBackoff: 3600, jitter: 0.1)
        #expect(settings.backoff(afterAttempt: attempt, random: 0) == seconds)
        #expect(settings.backoff(afterAttempt: attempt, random: 0.999_999) > seconds * 0.9)
        #expect(settings.backoff(afterAttempt: attempt, random: 0.999_999) <= seconds)
    }

    @Test func aLeaseCoversAWholeBatchAtTheConfiguredConcurrency() {
        #expect(WebhookDeliverySettings(timeout: .seconds(10), batchSize: 100, concurrency: 8).lease == 140)
        #expect(WebhookDeliverySettings(timeout: .seconds(10), batchSize: 4, concurrency: 8).lease == 20)
    }

    @Test func anUnreachableReceiverIsAFailedAttempt() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue()
        let refusing = RefusingPort()
        try await fixture.storeCallbackURL(refusing.baseURL + "/hooks")
        let report = try await fixture.deliverer(timeout: .seconds(2)).deliverDue(now: WebhookDeliveryFixture.now)
        #expect(report == WebhookDeliveryReport(failed: 1))
        let event = try #require(try await fixture.event(id))
        #expect(event.attempts == 1)
        #expect(event.lastError == "connection_failed")
        #expect(fixture.receiver.received.isEmpty)
        await fixture.tearDown()
    }

    @Test func aReceiverThatDoesNotAnswerInTimeIsAFailedAttempt() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue()
        fixture.receiver.holdAnswers()
        let report = try await fixture.deliverer(timeout: .milliseconds(300)).deliverDue(now: WebhookDeliveryFixture.now)
        fixture.receiver.release()
        #expect(report == WebhookDeliveryReport(failed: 1))
        #expect(try await fixture.event(id)?.lastError == "timeout")
        await fixture.tearDown()
    }

    @Test func anEventNeverAcceptedExpiresAfterTheRetryPeriod() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue(retention: 3600)
        fixture.receiver.answer(500, 500, 500, 500, 500, 500, 500, 500)
        let deliverer = fixture.deliverer()
        let now = WebhookDeliveryFixture.now
        var attempts = 0
        var at = now
        while at < now.addingTimeInterval(3600) {
            let report = try await deliverer.deliverDue(now: at)
            attempts += report.failed
            #expect(report.expired == 0)
            at = try #require(try await fixture.event(id)).nextAttemptAt
        }
        // attempts at 0, 30, 90, 210, 450, 930 and 1890 s; the next would be at 3810 s
        #expect(attempts == 7)
        #expect(try await deliverer.deliverDue(now: now.addingTimeInterval(3600)) == WebhookDeliveryReport(expired: 1))
        let event = try #require(try await fixture.event(id))
        #expect(event.status == .expired)
        #expect(event.attempts == 7)
        #expect(try await deliverer.deliverDue(now: now.addingTimeInterval(99_999)) == WebhookDeliveryReport())
        #expect(fixture.receiver.received.count == 7)
        await fixture.tearDown()
    }

    @Test func eventsWaitForAMerchantWithoutCallbackUntilOneIsSet() async throws {
        let fixture = try await WebhookDeliveryFixture(callback: false)
        let id = try await fixture.enqueue()
        let now = WebhookDeliveryFixture.now
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport())
        #expect(try await fixture.event(id)?.lastError == WebhookEvent.noCallbackError)
        _ = try await fixture.merchants.update(name: "acme", settings: MerchantSettings(callbackURL: fixture.receiver.url), actor: "test")
        #expect(try await fixture.deliverer().deliverDue(now: now.addingTimeInterval(3600)) == WebhookDeliveryReport(delivered: 1))
        #expect(fixture.receiver.distinctEventIDs == [id])
        await fixture.tearDown()
    }

    @Test func twoDeliverersAtOnceNeverSendTheSameEventTwice() async throws {
        let fixture = try await WebhookDeliveryFixture()
        var ids: Set<String> = []
        for _ in 0..<60 { ids.insert(try await fixture.enqueue()) }
        let secondStore = try await fixture.database.openAnother()
        let secondKeyring = Keyring(masterKeys: fixture.ring, store: secondStore)
        let first = fixture.deliverer(batchSize: 5, concurrency: 3)
        let second = fixture.deliverer(store: secondStore, keyring: secondKeyring, batchSize: 5, concurrency: 3)
        let now = WebhookDeliveryFixture.now
        async let a = first.deliverDue(now: now)
        async let b = second.deliverDue(now: now)
        let (reportA, reportB) = try await (a, b)
        #expect(reportA.delivered + reportB.delivered == 60)
        #expect(reportA.failed + reportB.failed == 0)
        #expect(fixture.receiver.received.count == 60)
        #expect(fixture.receiver.distinctEventIDs == ids)
        TestDatabase.close(secondStore)
        await fixture.tearDown()
    }

    @Test func noCardNumberKeyBodyOrURLReachesLogsOrErrors() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let pan = "4242424242424242"
        let id = try await fixture.enqueue(.transactionDeclined, data: ["note": .string("card \(pan)"), "last4": "4242"])
        fixture.receiver.answer(500)
        let deliverer = fixture.deliverer()
        let now = WebhookDeliveryFixture.now
        _ = try await deliverer.deliverDue(now: now)
        _ = try await deliverer.deliverDue(now: now.addingTimeInterval(3600))
        let event = try #require(try await fixture.event(id))
        #expect(event.status == .delivered)
        #expect(!event.body.contains(pan))
        #expect(fixture.receiver.received.allSatisfy { !$0.text.contains(pan) })
        let key = try await fixture.signingKey()
        let logs = fixture.logs.text
        #expect(logs.contains(id))
        #expect(logs.contains("http 500"))
        for secret in [pan, Encoding.hex(key), Encoding.base64(key), event.body, fixture.receiver.url, "424242******4242"] {
            #expect(!logs.contains(secret))
        }
        #expect(!(event.lastError ?? "").contains(fixture.receiver.url))
        await fixture.tearDown()
    }
}
