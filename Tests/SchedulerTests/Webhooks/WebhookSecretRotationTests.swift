import Foundation
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
@testable import VaultSQLite

/// A merchant's webhook secret rotated with an overlap, against a live receiver: during the overlap
/// every delivery carries a signature under each secret, so a receiver checking only the old one or
/// only the new one accepts it; after the overlap only the new secret signs.
@Suite struct WebhookSecretRotationTests {
    @Test func aReceiverCheckingEitherSecretAcceptsDuringTheOverlapAndOnlyTheNewOneAfter() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let now = WebhookDeliveryFixture.now
        let old = try await fixture.signingKey()
        let rotated = try await WebhookSecretRotation(store: fixture.store, keyring: fixture.keyring).rotate(
            merchantID: fixture.merchant.id, overlap: 3600, actor: "operator", now: now)
        let new = rotated.secret.copyToArray()
        #expect(rotated.version == 2 && rotated.previousSignUntil == now.addingTimeInterval(3600))
        #expect(old != new)

        _ = try await fixture.enqueue(.transactionApproved)
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport(delivered: 1))
        let during = try #require(fixture.receiver.received.last)
        let duringHeader = try #require(during.headers["vault-signature"])
        #expect(duringHeader.wholeMatch(of: /t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}/) != nil, "\(duringHeader)")
        #expect(WebhookSignature.isValid(header: duringHeader, body: during.body, key: old, now: now), "a receiver still on the old secret")
        #expect(WebhookSignature.isValid(header: duringHeader, body: during.body, key: new, now: now), "a receiver already on the new one")

        let after = now.addingTimeInterval(3600)
        _ = try await fixture.enqueue(.transactionApproved)
        #expect(try await fixture.deliverer().deliverDue(now: after) == WebhookDeliveryReport(delivered: 1))
        let later = try #require(fixture.receiver.received.last)
        let laterHeader = try #require(later.headers["vault-signature"])
        #expect(laterHeader.wholeMatch(of: /t=\d+,v1=[0-9a-f]{64}/) != nil, "\(laterHeader)")
        #expect(!WebhookSignature.isValid(header: laterHeader, body: later.body, key: old, now: after), "the old secret is dropped")
        #expect(WebhookSignature.isValid(header: laterHeader, body: later.body, key: new, now: after))
        #expect(try await fixture.signingKey() == new, "`vault webhooks secret` prints the new one")
        await fixture.tearDown()
    }
}
