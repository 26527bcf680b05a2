import Foundation
public import Logging
public import Vault

/// Verifies cards through the merchant's own gateway adapter and records each verification as a
/// `verify` transaction (the gateway's small authorization and its void, where the adapter needs
/// them, happen inside the adapter's verify). An approval's network transaction id is kept as the
/// stored credential of the card it was asked for, so the card's first scheduled charge continues
/// the series the verification started.
public struct GatewayCardVerifier: CardVerifier {
    let gateways: MerchantGateways
    let store: any TransactionStore
    let storedCredentials: StoredCredentials
    let logger: Logger

    /// A verifier through each merchant's adapter in `gateways`, recording into `store` and keeping
    /// credentials in `storedCredentials`; failures to record are logged to `logger`.
    public init(gateways: MerchantGateways, store: any TransactionStore, storedCredentials: StoredCredentials, logger: Logger) {
        self.gateways = gateways
        self.store = store
        self.storedCredentials = storedCredentials
        self.logger = logger
    }

    /// Verifies `card` through `merchant`'s adapter, recording a `verify` transaction; an approval
    /// with a network transaction id keeps it as the stored credential of `secureCardReference`.
    public func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
        let adapter: any GatewayAdapter
        do {
            adapter = try await gateways.adapter(for: merchant)
        } catch {
            logger.error("gateway not usable for verification", metadata: ["merchant": "\(merchant.id)", "error": "\(error)"])
            return .unavailable(reason: "gateway not configured")
        }
        // A card the gateway cannot take is refused before anything is recorded or sent.
        if let refusal = GatewayPreChecks.forGateway(named: adapter.name)?.refusal(cardNumber: card.pan) {
            return .refused(field: "card.number", code: refusal.code, message: refusal.message)
        }
        // Verified in the merchant's account currency: an account in another currency refuses a
        // verification in US dollars.
        let currency = merchant.gateway.currency
        var transaction = Transaction(
            id: OpaqueToken.make(prefix: "txn_", randomBits: 100), merchantID: merchant.id, type: .verify, amount: 0, currency: currency,
            gateway: adapter.name, now: Date())
        transaction.cardType = card.pan.brand.rawValue
        transaction.maskedNumber = card.pan.masked
        transaction.description = "card verification"
        transaction.storedCredential = .initial
        let audit = { (action: String) in
            AuditEntry(merchantID: merchant.id, actor: "system", action: action, objectType: "transaction", objectID: transaction.id,
                       details: ["type": "verify", "last4": card.pan.last4])
        }
        let bindings = TransactionBinding(keyring: storedCredentials.keyring)
        do {
            transaction = try await bindings.bound(transaction)
            try await store.insertTransaction(transaction, audit: audit("transaction.created"))
        } catch {
            logger.error("could not record a verification", metadata: ["merchant": "\(merchant.id)", "error": "\(error)"])
            return .unavailable(reason: "storage")
        }
        let request = ChargeRequest(
            idempotencyKey: transaction.idempotencyKey, reference: transaction.orderReference, amount: Money(minorUnits: 0, currency: currency),
            card: PaymentCard(pan: card.pan, expiry: card.expiry, holderName: card.holderName, cvv: card.cvv, postalCode: nil),
            description: "card verification", storedCredential: .initial)
        let result = await adapter.verify(request)
        transaction.apply(result, now: Date())
        transaction = (try? await bindings.bound(transaction)) ?? transaction
        // A verification's callback names the merchant only: the verifier holds no key to seal the holder's name.
        let parties = CallbackParties(merchantName: merchant.name)
        try? await store.completeTransaction(
            transaction, parentUpdate: nil, audit: audit("transaction.verify"), notices: (try? .outcome(of: transaction, parties: parties)) ?? .none)
        switch result.outcome {
        case .approved:
            await keepCredential(result, card: card, secureCardReference: secureCardReference, merchant: merchant, gateway: adapter.name, transactionID: transaction.id)
            return .verified(CardVerificationRecord(
                status: "verified", gateway: adapter.name, transactionId: result.transactionID, avsResult: result.avsResult,
                cvvResult: result.cvvResult, verifiedAt: Date()))
        case .declined(let code, .error):
            // The gateway refused the request itself: not a card decline.
            return .unavailable(reason: code)
        case .declined(let code, let category):
            return .declined(code: code, category: category.rawValue)
        case .error(let code, _):
            return .unavailable(reason: code)
        case .inDoubt(let reason):
            return .unavailable(reason: reason)
        }
    }

    /// Keeps the verification's network transaction id as the stored credential of the card
    /// `secureCardReference`. A failure to keep it is logged:
    /// the card's first scheduled charge then starts the recurring series itself. It is kept with the
    /// verified number's fingerprint: a verification of new card data runs before the card is
    /// updated, and the update drops only records of other numbers.
    private func keepCredential(
        _ result: GatewayResult, card: CapturedCard, secureCardReference: String, merchant: Merchant, gateway: String, transactionID: String
    ) async {
        guard let network = result.networkTransactionID else { return }
        do {
            try await storedCredentials.record(
                network, secureCardReference: secureCardReference, merchantID: merchant.id, gateway: gateway, transactionID: transactionID, replacing: true,
                cardNumber: card.pan)
        } catch {
            logger.error("could not keep a stored credential", metadata: ["merchant": "\(merchant.id)", "error": "\(error)"])
        }
    }
}
