import Foundation
public import Payments
import Vault

/// The body of `POST /v1/transactions/{id}/resolve` and `POST /v1/schedules/{id}/steps/{stepId}/resolve`:
/// `{"outcome": "charged", "gatewayTransactionId": "..."}` or `{"outcome": "not_charged"}`.
public struct ReviewResolutionRequest: Decodable, Sendable {
    /// The resolution asked for.
    public var resolution: ReviewResolution

    /// Longest gateway transaction id accepted.
    public static let maximumTransactionIDLength = 64

    enum CodingKeys: String, CodingKey {
        case outcome, gatewayTransactionId
    }

    /// Creates a request.
    public init(resolution: ReviewResolution) {
        self.resolution = resolution
    }

    /// Decodes and checks the body: `outcome` is `charged` or `not_charged`; `gatewayTransactionId`
    /// is required with `charged` (1-64 letters, digits, `.`, `_`, `-`, never card-number shaped)
    /// and refused with `not_charged`.
    /// - Throws: ``ReviewResolutionError/invalid(field:rule:message:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let outcome = try? container.decodeIfPresent(String.self, forKey: .outcome) else {
            throw ReviewResolutionError.invalid(field: "outcome", rule: "required", message: "outcome is required: charged or not_charged.")
        }
        let transactionID: String?
        do {
            transactionID = try container.decodeIfPresent(String.self, forKey: .gatewayTransactionId)
        } catch {
            throw ReviewResolutionError.invalid(field: "gatewayTransactionId", rule: "invalid_value", message: "gatewayTransactionId must be a string.")
        }
        switch outcome {
        case "charged":
            guard let transactionID else {
                throw ReviewResolutionError.invalid(
                    field: "gatewayTransactionId", rule: "required", message: "gatewayTransactionId is required when the outcome is charged.")
            }
            try Self.check(transactionID)
            resolution = .charged(gatewayTransactionID: transactionID)
        case "not_charged":
            guard transactionID == nil else {
                throw ReviewResolutionError.invalid(
                    field: "gatewayTransactionId", rule: "not_allowed", message: "gatewayTransactionId is only given when the outcome is charged.")
            }
            resolution = .notCharged
        default:
            throw ReviewResolutionError.invalid(field: "outcome", rule: "invalid_value", message: "outcome must be charged or not_charged.")
        }
    }

    static func check(_ transactionID: String) throws(ReviewResolutionError) {
        let allowed = transactionID.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }
        guard (1...maximumTransactionIDLength).contains(transactionID.count), allowed else {
            throw .invalid(field: "gatewayTransactionId", rule: "invalid_value",
                           message: "gatewayTransactionId must be 1 to \(maximumTransactionIDLength) letters, digits, '.', '_' or '-'.")
        }
        do {
            try CardNumberShape.refuse(transactionID, field: "gatewayTransactionId")
        } catch {
            throw .invalid(field: "gatewayTransactionId", rule: error.code, message: error.message)
        }
    }
}

/// A resolution body that breaks a rule (422).
public enum ReviewResolutionError: Error, Equatable, Sendable {
    /// `field` breaks `rule`.
    case invalid(field: String, rule: String, message: String)
}
