import Foundation
import HTTPTypes
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A card number typed into a reference or free-text field would be stored,
/// listed, searched and logged in clear. Every such field refuses one (422 naming the field,
/// `card_number_not_allowed`), the answer never repeats it, and nothing is stored or charged.
@Suite struct CardNumberFieldTests {
    static let pans = ["4111111111111111", "4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005"]

    static func expectRefused(_ response: TestResponse, param: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == .unprocessableContent, "\(response.status)", sourceLocation: sourceLocation)
        #expect(response.error["code"] as? String == "card_number_not_allowed", sourceLocation: sourceLocation)
        #expect(response.error["param"] as? String == param, sourceLocation: sourceLocation)
        for pan in pans {
            #expect(!response.text.contains(pan), "the answer repeats the card number", sourceLocation: sourceLocation)
        }
        #expect(!response.text.contains("41111111"), sourceLocation: sourceLocation)
    }

    @Test func secureCardRegistrationRefusesCardNumbersInReferenceCustomerAndCustomFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let fields = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "Note", "required": false, "maxLength": 64}]}"#)
            #expect(fields.status == .ok)
            for reference in ["4111111111111111", "4111-1111-1111-1111", "ref:5555555555554444"] {
                Self.expectRefused(
                    try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard(reference, verify: false)),
                    param: "merchantReference")
            }
            Self.expectRefused(
                try await client.send(.post, "/v1/secure-cards", key: fixture.adminA,
                                      json: keyedCard("c1", verify: false, extra: #", "customer": {"city": "card 4111 1111 1111 1111"}"#)),
                param: "customer.city")
            Self.expectRefused(
                try await client.send(.post, "/v1/secure-cards", key: fixture.adminA,
                                      json: keyedCard("c1", verify: false, extra: #", "customFields": [{"name": "Note", "value": "5555-5555-5555-4444"}]"#)),
                param: "customFields[0].value")
            #expect(try await fixture.count("secure_cards") == 0)
            #expect(try await fixture.runtime.gateways.sandbox.transactionCount == 0)

            // The same requests without a card number pass: a 16-digit reference failing Luhn is no card number.
            let ok = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA,
                json: keyedCard("4111111111111112", verify: false, extra: #", "customer": {"city": "Paris"}, "customFields": [{"name": "Note", "value": "order 4111"}]"#))
            #expect(ok.status == .created, "\(ok.status)")
            let update = try await client.send(
                .patch, "/v1/secure-cards/4111111111111112", key: fixture.adminA, json: #"{"customer": {"region": "4111111111111111"}}"#)
            Self.expectRefused(update, param: "customer.region")
        }
    }

    @Test func customFieldDefinitionsRefuseACardNumberAsName() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let put = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "4111-1111-1111-1111", "required": false, "maxLength": 8}]}"#)
            Self.expectRefused(put, param: "fields[0].name")
            #expect(try await fixture.count("custom_field_definitions") == 0)
        }
    }

    @Test func transactionsRefuseCardNumbersInDescriptionAndInTheRegistrationBeforeCharging() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = TransactionRoutesTests.rawSale(extra: #", "description": "paid with 4111 1111 1111 1111""#)
            Self.expectRefused(try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: sale), param: "description")
            let register = TransactionRoutesTests.rawSale(extra: #", "secureCard": {"merchantReference": "5555555555554444"}"#)
            Self.expectRefused(try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: register), param: "secureCard.merchantReference")
            #expect(try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "Note", "required": false, "maxLength": 64}]}"#).status == .ok)
            let registerFields = TransactionRoutesTests.rawSale(
                extra: #", "secureCard": {"merchantReference": "c-9", "customFields": [{"name": "Note", "value": "4111111111111111"}]}"#)
            Self.expectRefused(
                try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: registerFields), param: "secureCard.customFields[0].value")
            #expect(try await fixture.runtime.gateways.sandbox.transactionCount == 0)
            #expect(try await fixture.count("transactions") == 0)
            let plain = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(extra: #", "description": "order 1234""#))
            #expect(plain.status == .created, "\(plain.status)")
        }
    }

    @Test func schedulesRefuseCardNumbersInDescriptionExternalIdAndReceiptContacts() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1", verify: false)).status == .created)
            let cases = [
                (#"{"description": "card 4111111111111111"}"#, "description"), (#"{"externalId": "4111-1111-1111-1111"}"#, "externalId"),
                (#"{"receiptEmail": "4111111111111111@example.com"}"#, "receiptEmail"), (#"{"receiptPhone": "4111111111111111"}"#, "receiptPhone"),
            ]
            for (field, param) in cases {
                let body = ScheduleRoutesTests.monthly().replacingOccurrences(of: #""description": "Gym", "#, with: "")
                    .replacingOccurrences(of: "{", with: String(field.dropLast()) + ", ", options: [], range: nil)
                Self.expectRefused(try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: body), param: param)
            }
            #expect(try await fixture.count("schedules") == 0)
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly())
            #expect(created.status == .created, "\(created.status)")
            let id = try #require(created.json["id"] as? String)
            let patch = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"description": "4111 1111 1111 1111"}"#)
            Self.expectRefused(patch, param: "description")
        }
    }

    @Test func anIdempotencyKeyShapedLikeACardNumberIsRefusedBeforeAnythingIsStored() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let refused = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1", verify: false), headers: [.idempotencyKey: "4111111111111111-1250"])
            Self.expectRefused(refused, param: "Idempotency-Key")
            #expect(try await fixture.count("idempotency_keys") == 0)
            #expect(try await fixture.count("secure_cards") == 0)
            let accepted = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1", verify: false), headers: [.idempotencyKey: "order-1250-a"])
            #expect(accepted.status == .created, "\(accepted.status)")
        }
    }

    @Test func theCommandLineRefusesACardNumberAsMerchantNameWithoutPrintingIt() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let refused = try await vault.run(["merchant", "create", "4111-1111-1111-1111"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("card number"))
        #expect(!refused.stderr.contains("1111-1111") && !refused.stdout.contains("1111-1111"))
        let missing = try await vault.run(["merchant", "update", "4111111111111111", "--time-zone", "UTC"])
        #expect(missing.status == 1)
        #expect(!missing.stderr.contains("4111111111111111"))
    }

    /// The same card number written with every separator and digit form the one normaliser knows,
    /// as JSON text (`\u` escapes for the invisible characters).
    static let disguises = [
        "4242.4242.4242.4242", "4242_4242_4242_4242", "4242:4242:4242:4242", "4242--4242--4242--4242", "4242  4242  4242  4242",
        "4242/4242/4242/4242", #"4242\u00a04242\u00a04242\u00a04242"#, #"4242\u200b4242\u200b4242\u200b4242"#,
        #"4\udb40\udc30242424242424242"#, "００００４２４２４２４２４２４２４２４２", "⁴²⁴²⁴²⁴²⁴²⁴²⁴²⁴²", "00004242424242424242",
    ]

    @Test func aCardNumberWithAnySeparatorOrDigitFormIsRefusedInEveryFreeTextField() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "Note", "required": false, "maxLength": 64}]}"#).status == .ok)
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1", verify: false)).status == .created)
            for disguise in Self.disguises {
                // merchantReference's own alphabet (letters, digits, `.`, `_`, `:`, `-`) and an Idempotency-Key's
                // (visible ASCII) refuse the other disguises as malformed before any card-number check.
                if disguise.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._:-".contains($0)) }) {
                    Self.expectRefused(
                        try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard(disguise, verify: false)),
                        param: "merchantReference")
                }
                if disguise.allSatisfy({ $0.isASCII && $0 != " " && $0 != "\\" }) {
                    Self.expectRefused(
                        try await client.send(
                            .post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c-ok", verify: false), headers: [.idempotencyKey: "k-" + disguise]),
                        param: "Idempotency-Key")
                }
                Self.expectRefused(
                    try await client.send(.post, "/v1/secure-cards", key: fixture.adminA,
                                          json: keyedCard("c-ok", verify: false, extra: #", "customFields": [{"name": "Note", "value": "\#(disguise)"}]"#)),
                    param: "customFields[0].value")
                Self.expectRefused(
                    try await client.send(.post, "/v1/transactions", key: fixture.adminA,
                                          json: TransactionRoutesTests.rawSale(extra: #", "description": "paid \#(disguise)""#)),
                    param: "description")
                let schedule = ScheduleRoutesTests.monthly().replacingOccurrences(of: #""description": "Gym""#, with: #""description": "Gym \#(disguise)""#)
                Self.expectRefused(try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: schedule), param: "description")
            }
            #expect(try await fixture.count("secure_cards") == 1)
            #expect(try await fixture.count("schedules") == 0)
            #expect(try await fixture.count("idempotency_keys") == 0)
            #expect(try await fixture.runtime.gateways.sandbox.transactionCount == 0)

            // The access log masks a card number in the path however it is separated.
            _ = try await client.send(.get, "/v1/secure-cards/4242.4242.4242.4242", key: fixture.adminA)
            _ = try await client.send(.get, "/v1/secure-cards/4242_4242_4242_4242", key: fixture.adminA)
            #expect(!fixture.logText.contains("4242.4242.4242.4242"))
            #expect(!fixture.logText.contains("4242_4242_4242_4242"))
            #expect(!fixture.logText.contains("4242424242424242"))

            // Text that holds no card number still passes.
            let plain = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA,
                                              json: keyedCard("order.2026_11:26", verify: false, extra: #", "customFields": [{"name": "Note", "value": "room 4242, floor 12"}]"#))
            #expect(plain.status == .created, "\(plain.text)")
        }
    }
}
