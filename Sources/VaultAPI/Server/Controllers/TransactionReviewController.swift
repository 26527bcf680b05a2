import Foundation
import Hummingbird
import Payments
import Vault

/// `POST /v1/transactions/{id}/resolve`: an operator settles a one-off transaction in review
/// (`needs_review`) as charged (with the gateway's transaction id) or not charged, after checking
/// the gateway's own records for its order reference.
struct TransactionReviewController {
    let reviews: TransactionReviewService
    /// Renders the answer (the transaction's JSON with what it still allows).
    let transactions: TransactionService

    func addRoutes(to api: APIRoutes) {
        api.adminOnly.post("transactions/:id/resolve") { request, context in
            let body = try await JSONCoding.decode(ReviewResolutionRequest.self, from: request)
            let resolved = try await reviews.resolve(
                id: try context.parameters.require("id"), body.resolution, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(await transactions.response(resolved, merchant: context.merchant))
        }
    }
}

extension ReviewResolutionError: APIErrorConvertible {
    /// 422 naming the field and the rule.
    public var apiError: APIError {
        switch self {
        case .invalid(let field, let rule, let message): .invalid(message, code: rule, param: field)
        }
    }
}
