import Foundation
import Logging
import Scheduler
import Vault

/// Verifies cards through the merchant's own gateway adapter (SPEC §4 verification).
struct GatewayCardVerifier: CardVerifier {
    let gateways: GatewayRegistry
    let merchants: MerchantService
    let logger: Logger

    func verify(_ card: CapturedCard, merchant: Merchant, reference: String) async -> CardVerificationResult {
        let adapter: any GatewayAdapter
        do {
            let credentials = try await merchants.gatewayCredentials(merchantID: merchant.id)
            adapter = try gateways.adapter(
                for: GatewayConfiguration(name: merchant.gateway.name, url: merchant.gateway.url, credentials: credentials))
        } catch {
            logger.error("gateway not usable for verification", metadata: ["merchant": "\(merchant.id)", "error": "\(error)"])
            return .unavailable(reason: "gateway not configured")
        }
        let currency = (try? Currency(code: "USD"))!
        let request = ChargeRequest(
            idempotencyKey: "verify-" + reference, reference: Self.orderReference(reference), amount: Money(minorUnits: 0, currency: currency),
            card: PaymentCard(pan: card.pan, expiry: card.expiry, holderName: card.holderName, cvv: card.cvv, postalCode: nil),
            description: "card verification")
        let result = await adapter.verify(request)
        switch result.outcome {
        case .approved:
            return .verified(CardVerificationRecord(
                status: "verified", gateway: adapter.name, transactionId: result.transactionID, avsResult: result.avsResult,
                cvvResult: result.cvvResult, verifiedAt: Date()))
        case .declined(let code, let category):
            return .declined(code: code, category: category.rawValue)
        case .error(let code, _):
            return .unavailable(reason: code)
        case .inDoubt(let reason):
            return .unavailable(reason: reason)
        }
    }

    /// Gateways cap order references (Authorize.Net invoiceNumber: 20 characters): `v` and the
    /// attempt's random suffix.
    static func orderReference(_ attempt: String) -> String {
        "v" + String(attempt.split(separator: "-").last?.suffix(19) ?? "")
    }
}
