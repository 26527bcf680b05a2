import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A series starts with a customer-initiated first use of the card number it charges: confirming a
/// schedule on a card without one on file verifies the card through the merchant's gateway (the
/// credential is stored), or is refused with 409 `stored_credential_missing` when the gateway's
/// answer holds no network transaction id; a new card number drops the old number's credential.
@Suite struct ScheduleFirstUseTests {
    static func schedule(_ client: some TestClientProtocol, key: String, card: String) async throws -> String {
        let created = try await client.send(
            .post, "/v1/schedules", key: key,
            json: #"{"merchantReference": "\#(card)", "amount": 1500, "currency": "USD", "type": "delayedOnce", "startDate": "2030-01-15"}"#)
        return try #require(created.json["id"] as? String, "\(created.text)")
    }

    static func credentials(_ fixture: APIFixture, card: String) async throws -> Int {
        try await fixture.count("stored_credentials WHERE secure_card_id = (SELECT id FROM secure_cards WHERE merchant_reference = '\(card)')")
    }

    @Test func confirmingOnACardWithoutAFirstUseVerifiesItFirst() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-1", verify: false))
            #expect(card.status == .created, "\(card.text)")
            #expect(try await Self.credentials(fixture, card: "fu-1") == 0)
            let id = try await Self.schedule(client, key: fixture.adminA, card: "fu-1")
            let confirmed = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            #expect(confirmed.json["status"] as? String == "active")
            #expect(try await Self.credentials(fixture, card: "fu-1") == 1)
            #expect(try await fixture.count("transactions WHERE type = 'verify' AND status = 'approved' AND stored_credential = 'initial'") == 1)

            // A card with its first use on file is not verified again.
            let again = try await Self.schedule(client, key: fixture.adminA, card: "fu-1")
            #expect(try await client.send(.post, "/v1/schedules/\(again)/confirm", key: fixture.adminA).status == .ok)
            #expect(try await fixture.count("transactions WHERE type = 'verify'") == 1)
        }
    }

    @Test func aDeclinedVerificationLeavesTheScheduleUnconfirmed() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-2", number: "4000000000000002", verify: false))
            let id = try await Self.schedule(client, key: fixture.adminA, card: "fu-2")
            let refused = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            #expect(refused.status.code == 402, "\(refused.text)")
            #expect(refused.error["code"] as? String == "card_declined")
            let schedule = try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA)
            #expect(schedule.json["status"] as? String == "pending_confirmation")
            #expect(try await Self.credentials(fixture, card: "fu-2") == 0)
        }
    }

    @Test func movingAConfirmedScheduleToAnotherCardNeedsThatCardsFirstUse() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-5", verify: true))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-6", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-7", number: "4000000000000002", verify: false))
            let id = try await Self.schedule(client, key: fixture.adminA, card: "fu-5")
            #expect(try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA).status == .ok)

            let declined = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"merchantReference": "fu-7"}"#)
            #expect(declined.status.code == 402, "\(declined.text)")
            let unchanged = try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA)
            let first = try #require(try await client.send(.get, "/v1/secure-cards/fu-5", key: fixture.adminA).json["secureCardReference"] as? String)
            #expect(unchanged.json["secureCardReference"] as? String == first)

            let moved = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"merchantReference": "fu-6"}"#)
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(try await Self.credentials(fixture, card: "fu-6") == 1)
        }
    }

    /// A gateway whose verifications carry no network transaction id (it keeps none, or did not
    /// answer one): nothing could start the series, so confirmation is refused and says how to.
    @Test func aVerificationWithoutANetworkIDIsRefusedWithStoredCredentialMissing() async throws {
        let fixture = try await APIFixture()
        let runtime = fixture.runtime
        let merchant = fixture.merchantA
        let card = try await runtime.cards.register(
            SecureCardRegistration(
                merchantReference: "fu-3", source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230")),
                verify: false),
            merchant: merchant, actor: "test")
        let gateways = MerchantGateways(every: WithoutNetworkIDs(), registry: runtime.gateways, merchants: runtime.merchants)
        let storedCredentials = StoredCredentials(store: runtime.store, keyring: runtime.keyring)
        let check = GatewayFirstUseCheck(
            cards: runtime.cards, storedCredentials: storedCredentials,
            verifier: GatewayCardVerifier(gateways: gateways, store: runtime.store, storedCredentials: storedCredentials, logger: fixture.logger))
        let schedules = ScheduleService(
            store: runtime.store, settings: ScheduleSettings(defaultTime: .midnight), keyring: runtime.keyring, firstUse: check)
        let plan = PlanTerms(type: "delayedOnce", startDate: "2030-01-15")
        let created = try await schedules.create(
            NewSchedule(secureCardReference: card.reference, amount: 1500, currency: "USD", plan: plan), merchant: merchant, actor: "test")
        do {
            _ = try await schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test")
            Issue.record("confirmed without a first use")
        } catch let error as ScheduleError {
            #expect(error == .storedCredentialMissing(secureCardReference: card.reference, merchantReference: "fu-3"))
            let api = error.apiError
            #expect(api.status == .conflict)
            #expect(api.code == "stored_credential_missing")
            #expect(api.message.contains("PATCH /v1/secure-cards/fu-3") && api.message.contains("\"verify\": true"), "\(api.message)")
        }
        #expect(try await schedules.get(id: created.schedule.id, merchant: merchant).schedule.status == .pendingConfirmation)
    }

    @Test func aNewCardNumberDropsTheOldNumbersStoredCredential() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("fu-4", verify: true))
            #expect(card.status == .created, "\(card.text)")
            #expect(try await Self.credentials(fixture, card: "fu-4") == 1)

            // Not the number: the credential stays.
            let details = try await client.send(
                .patch, "/v1/secure-cards/fu-4", key: fixture.adminA, json: #"{"customer": {"email": "ada@example.com"}}"#)
            #expect(details.status == .ok, "\(details.text)")
            let sameNumber = try await client.send(
                .patch, "/v1/secure-cards/fu-4", key: fixture.adminA,
                json: #"{"method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1231"}, "verify": false}"#)
            #expect(sameNumber.status == .ok, "\(sameNumber.text)")
            #expect(try await Self.credentials(fixture, card: "fu-4") == 1)

            // Another number without verification: the old number's credential goes.
            let replaced = try await client.send(
                .patch, "/v1/secure-cards/fu-4", key: fixture.adminA,
                json: #"{"method": "keyed", "card": {"number": "5555555555554444", "expiryDate": "1230"}, "verify": false}"#)
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(try await Self.credentials(fixture, card: "fu-4") == 0)

            // Another number with verification: its own first use is kept.
            let verified = try await client.send(
                .patch, "/v1/secure-cards/fu-4", key: fixture.adminA,
                json: #"{"method": "keyed", "card": {"number": "4111111111111111", "expiryDate": "1230"}, "verify": true}"#)
            #expect(verified.status == .ok, "\(verified.text)")
            #expect(try await Self.credentials(fixture, card: "fu-4") == 1)
        }
    }
}

/// The sandbox, with every network transaction id taken out of its answers.
struct WithoutNetworkIDs: GatewayAdapter {
    let name = "sandbox"
    let sandbox = SandboxGateway()

    func strip(_ result: GatewayResult) -> GatewayResult {
        var result = result
        result.networkTransactionID = nil
        return result
    }

    func sale(_ request: ChargeRequest) async -> GatewayResult { strip(await sandbox.sale(request)) }
    func authorize(_ request: ChargeRequest) async -> GatewayResult { strip(await sandbox.authorize(request)) }
    func capture(_ request: FollowUpRequest) async -> GatewayResult { await sandbox.capture(request) }
    func void(_ request: FollowUpRequest) async -> GatewayResult { await sandbox.void(request) }
    func refund(_ request: FollowUpRequest) async -> GatewayResult { await sandbox.refund(request) }
    func verify(_ request: ChargeRequest) async -> GatewayResult { strip(await sandbox.verify(request)) }
    func credit(_ request: ChargeRequest) async -> GatewayResult { await sandbox.credit(request) }
    func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await sandbox.lookup(reference: reference, gatewayTransactionID: gatewayTransactionID)
    }
}
