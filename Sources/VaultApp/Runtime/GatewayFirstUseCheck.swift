import Foundation
import Logging
import Payments
import Scheduler
import Vault

/// The first-use check of schedule confirmation: a card with a stored credential of its current
/// number for the merchant's gateway passes; one without gets a verification through the merchant's
/// gateway (customer-initiated, credential stored, recorded as a `verify` transaction) whose network
/// transaction id becomes the credential. Confirmation is the customer's step (confirming the
/// steps), so the verification is customer-initiated as the networks want the first use to be; the
/// merchant need not send the card again, and sandbox merchants confirm as before. A declined
/// verification is a 402, an unreachable gateway a 502, and an approval without a network
/// transaction id a 409 `stored_credential_missing` saying how to make the first use.
struct GatewayFirstUseCheck: FirstUseCheck {
    let cards: SecureCardService
    let storedCredentials: StoredCredentials
    let verifier: GatewayCardVerifier

    func ensureFirstUse(secureCardReference: String, merchant: Merchant, actor: String) async throws {
        if try await onFile(secureCardReference, merchant: merchant) { return }
        let card = try await cards.cardForCharge(reference: secureCardReference, merchantID: merchant.id)
        let captured = CapturedCard(pan: card.pan, expiry: card.expiry, holderName: card.holderName, entryMode: .keyed)
        switch await verifier.verify(captured, merchant: merchant, secureCardReference: secureCardReference) {
        case .verified:
            guard try await onFile(secureCardReference, merchant: merchant) else {
                throw ScheduleError.storedCredentialMissing(secureCardReference: secureCardReference, merchantReference: card.merchantReference)
            }
        case .declined(let code, let category):
            throw SecureCardError.verificationDeclined(code: code, category: category)
        case .unavailable(let reason):
            throw SecureCardError.verificationUnavailable(reason: reason)
        case .refused(let field, let code, let message):
            throw CardDataError(field: field, code: code, message: message)
        }
    }

    private func onFile(_ secureCardReference: String, merchant: Merchant) async throws -> Bool {
        try await storedCredentials.originalNetworkTransactionID(
            secureCardReference: secureCardReference, merchantID: merchant.id, gateway: merchant.gateway.name) != nil
    }
}
