import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault

/// A data-key rotation re-seals the holder data in stored webhook event bodies: an event still
/// queued when the superseded data key is destroyed is sent with the holder name, not held back
/// as unreadable.
@Suite struct WebhookDataKeyRotationTests {
    @Test func anEventQueuedAcrossADataKeyRotationIsDeliveredWithItsHolderNameAfterTheOldKeyIsDestroyed() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let merchantID = fixture.merchant.id
        let marker = try await WebhookFieldSeal(keyring: fixture.keyring).seal("Ada Lovelace", merchantID: merchantID, recordID: "txn_1")
        let id = try await fixture.enqueue(.transactionApproved, data: ["transactionId": "txn_1", "holderName": .string(marker)])
        // The receiver is down: the event stays queued.
        fixture.receiver.answer(503)
        let now = WebhookDeliveryFixture.now
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport(delivered: 0, failed: 1))

        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchantID, actor: "test") == 2)
        let reseal = WebhookEventReseal(store: fixture.store, keyring: fixture.keyring)
        #expect(try await reseal.resealAll(merchantID: merchantID) == 1)
        #expect(try await reseal.resealAll(merchantID: merchantID) == 0, "an event sealed under the newest key is left alone")
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: merchantID, actor: "test") == [1])
        let queued = try #require(try await fixture.event(id))
        #expect(queued.status == .pending && !queued.body.contains("Lovelace"))

        // The receiver is up again.
        #expect(try await fixture.deliverer().deliverDue(now: queued.nextAttemptAt) == WebhookDeliveryReport(delivered: 1))
        let webhook = try #require(fixture.receiver.received.last)
        #expect(webhook.text.contains(#""holderName":"Ada Lovelace""#))
        #expect(!webhook.text.contains("sealed:"))
        await fixture.tearDown()
    }
}
