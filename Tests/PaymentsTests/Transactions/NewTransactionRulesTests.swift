import Foundation
import Payments
import Testing
import Vault

/// The rules a new transaction is checked against before any card is looked up or any gateway
/// called, in the order a request is answered.
@Suite struct NewTransactionRulesTests {
    static func merchant(gateway: String = "sandbox", currency: String = "EUR", allowsCredit: Bool = false) throws -> Merchant {
        var merchant = Merchant(
            id: "mer_1", sequence: 1, name: "m", status: .active, gateway: GatewaySettings(name: gateway, currency: try Currency(code: currency)),
            timeZone: "UTC", callbackURL: nil, verifyOnRegistration: false, createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 0))
        merchant.allowsCredit = allowsCredit
        return merchant
    }

    static let keyed = CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230"))

    static func refusal(_ make: () throws -> NewTransaction) -> TransactionError? {
        do {
            _ = try make()
            return nil
        } catch {
            return error as? TransactionError
        }
    }

    @Test func aRawCardSaleIsTakenWithItsRegistration() throws {
        let order = try NewTransaction(
            type: "sale", amount: 1250, currency: "USD", source: Self.keyed,
            registration: NewTransaction.SaleRegistration(merchantReference: "ref-1"), description: "Order 7", merchant: try Self.merchant())
        #expect(order.type == .sale)
        #expect(order.amount == 1250)
        #expect(order.currency.code == "USD")
        #expect(order.registration?.merchantReference == "ref-1")
        #expect(order.allowDuplicate == false)
        guard case .raw(let source) = order.card else { Issue.record("expected raw card data"); return }
        #expect(source == Self.keyed)
    }

    @Test func aVerificationWithoutCurrencyUsesTheGatewayAccountsCurrency() throws {
        let order = try NewTransaction(type: "verify", amount: nil, currency: nil, secureCardReference: "sc_1", merchant: try Self.merchant())
        #expect(order.currency.code == "EUR")
        #expect(order.amount == 0)
        guard case .stored(let token, let reference) = order.card else { Issue.record("expected a stored card"); return }
        #expect(token == "sc_1" && reference == nil)
    }

    @Test func aCreditWhereTheMerchantAllowsNoneIsRefusedBeforeItsAmount() throws {
        let merchant = try Self.merchant()
        #expect(Self.refusal { try NewTransaction(type: "credit", amount: 0, currency: "USD", source: Self.keyed, merchant: merchant) }
            == .notPermitted(code: "credit_not_allowed", message: Self.creditMessage))
        var allowing = merchant
        allowing.allowsCredit = true
        #expect(Self.refusal { try NewTransaction(type: "credit", amount: 0, currency: "USD", source: Self.keyed, merchant: allowing) }
            .map(Self.field) == "amount")
    }

    static let creditMessage = "This merchant's settings do not allow credits (refunds without an earlier sale); refund the sale instead, "
        + "or ask the operator to run `vault merchant update NAME --allow-credit true`."

    static func field(_ error: TransactionError) -> String? {
        if case .invalid(let field, _, _) = error { return field }
        return nil
    }

    @Test(arguments: [
        ("refund", nil as Int64?, "USD" as String?, "type"),
        ("sale", 100, nil, "currency"),
        ("sale", 100, "XXZ", "currency"),
        ("verify", 1, "USD", "amount"),
        ("sale", 0, "USD", "amount"),
        ("sale", MinorUnits.maximum + 1, "USD", "amount"),
    ])
    func aBadFieldIsNamed(type: String, amount: Int64?, currency: String?, field: String) throws {
        let merchant = try Self.merchant()
        #expect(Self.refusal { try NewTransaction(type: type, amount: amount, currency: currency, source: Self.keyed, merchant: merchant) }
            .map(Self.field) == field)
    }

    @Test func exactlyOneCardPaysAndOnlyARawCardSaleRegisters() throws {
        let merchant = try Self.merchant()
        #expect(Self.refusal { try NewTransaction(type: "sale", amount: 100, currency: "USD", merchant: merchant) }
            == .invalid(field: "secureCardReference", code: "required", message: "Give a secureCardReference, a merchantReference or card data."))
        #expect(Self.refusal {
            try NewTransaction(type: "sale", amount: 100, currency: "USD", secureCardReference: "sc_1", source: Self.keyed, merchant: merchant)
        }.map(Self.field) == "secureCardReference")
        let registration = NewTransaction.SaleRegistration(merchantReference: "ref-1")
        #expect(Self.refusal {
            try NewTransaction(type: "sale", amount: 100, currency: "USD", merchantReference: "ref-0", registration: registration, merchant: merchant)
        }.map(Self.field) == "secureCard")
        #expect(Self.refusal {
            try NewTransaction(type: "authorize", amount: 100, currency: "USD", source: Self.keyed, registration: registration, merchant: merchant)
        }.map(Self.field) == "secureCard")
    }

    @Test func aCardNumberInTheDescriptionIsRefused() throws {
        let merchant = try Self.merchant()
        let error = Self.refusal {
            try NewTransaction(type: "sale", amount: 100, currency: "USD", source: Self.keyed, description: "4242 4242 4242 4242", merchant: merchant)
        }
        #expect(error.map(Self.field) == "description")
    }
}
