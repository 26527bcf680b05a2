import Vault

extension SandboxGateway {
    /// The follow-up rules, applied inside one ledger transaction.
    static func capture(_ request: FollowUpRequest, in work: inout SandboxLedgerWork) -> GatewayResult {
        guard let original = work.transaction(request.gatewayTransactionID), original.isApproved else {
            return notFound()
        }
        guard original.kind == .authorization else {
            return .error("not_capturable", retryable: false, text: "Only an authorization can be captured.")
        }
        guard !original.voided else { return .error("transaction_voided", retryable: false, text: "The authorization was voided.") }
        guard original.captured.minorUnits == 0 else {
            return .error("already_captured", retryable: false, text: "The authorization was already captured.")
        }
        let amount = request.amount ?? original.authorized
        guard amount.currency == original.authorized.currency else { return currencyMismatch() }
        guard amount.minorUnits > 0 else { return .error("invalid_amount", retryable: false, text: "The amount must be positive.") }
        guard amount.minorUnits <= original.authorized.minorUnits else {
            return .error("amount_exceeds_authorized", retryable: false, text: "The capture exceeds the authorized amount.")
        }
        work.update(original.id) { $0.captured = amount }
        return GatewayResult(outcome: .approved, transactionID: original.id, authCode: original.result.authCode,
                             responseCode: "00", responseText: "Captured")
    }

    /// A void releases what remains of a transaction (an authorization's authorized amount before
    /// capture, a sale's or capture's captured amount, a refund's amount), or, with an amount below
    /// that, only the amount (a partial reversal); an amount at or above what remains voids the
    /// whole. Voiding a refund gives its amount back to the parent's refundable amount.
    static func void(_ request: FollowUpRequest, in work: inout SandboxLedgerWork) -> GatewayResult {
        guard let original = work.transaction(request.gatewayTransactionID), original.isApproved else {
            return notFound()
        }
        guard original.kind != .verification else {
            return .error("not_voidable", retryable: false, text: "A verification holds no funds.")
        }
        guard !original.voided else { return .error("transaction_voided", retryable: false, text: "Already voided.") }
        guard original.refunded.minorUnits == 0 else {
            return .error("transaction_refunded", retryable: false, text: "A refunded transaction cannot be voided.")
        }
        let releasesAuthorized = original.kind == .refund || (original.kind == .authorization && original.captured.minorUnits == 0)
        let remaining = releasesAuthorized ? original.authorized : original.captured
        let requested = request.amount ?? remaining
        guard requested.currency == remaining.currency else { return currencyMismatch() }
        guard requested.minorUnits > 0 else { return .error("invalid_amount", retryable: false, text: "The amount must be positive.") }
        let released = min(requested.minorUnits, remaining.minorUnits)
        let whole = released == remaining.minorUnits
        work.update(original.id) { transaction in
            let left = Money(minorUnits: remaining.minorUnits - released, currency: remaining.currency)
            if releasesAuthorized { transaction.authorized = left } else { transaction.captured = left }
            transaction.reversed = Money(minorUnits: transaction.reversed.minorUnits + released, currency: remaining.currency)
            transaction.voided = whole
        }
        if original.kind == .refund, let parentID = original.parentID {
            work.update(parentID) {
                $0.refunded = Money(minorUnits: $0.refunded.minorUnits - released, currency: $0.refunded.currency)
            }
        }
        return GatewayResult(outcome: .approved, transactionID: original.id, responseCode: "00",
                             responseText: whole ? "Voided" : "Partially reversed")
    }

    static func refund(_ request: FollowUpRequest, in work: inout SandboxLedgerWork) -> GatewayResult {
        guard let original = work.transaction(request.gatewayTransactionID), original.isApproved else {
            return notFound()
        }
        guard original.kind == .sale || original.kind == .authorization else {
            return .error("not_refundable", retryable: false, text: "Only a sale or a captured authorization can be refunded.")
        }
        guard !original.voided else { return .error("transaction_voided", retryable: false, text: "The transaction was voided.") }
        guard original.captured.minorUnits > 0 else {
            return .error("not_captured", retryable: false, text: "Nothing was captured; void the authorization instead.")
        }
        let remaining = original.captured.minorUnits - original.refunded.minorUnits
        let amount = request.amount ?? Money(minorUnits: remaining, currency: original.captured.currency)
        guard amount.currency == original.captured.currency else { return currencyMismatch() }
        guard amount.minorUnits > 0 else {
            return .error(remaining == 0 ? "amount_exceeds_refundable" : "invalid_amount", retryable: false,
                          text: "Nothing is left to refund, or the amount is not positive.")
        }
        guard amount.minorUnits <= remaining else {
            return .error("amount_exceeds_refundable", retryable: false,
                          text: "The refund exceeds the captured amount not yet refunded.")
        }
        let id = transactionID()
        let result = GatewayResult(outcome: .approved, transactionID: id, responseCode: "00", responseText: "Refunded")
        work.update(original.id) {
            $0.refunded = Money(minorUnits: $0.refunded.minorUnits + amount.minorUnits, currency: amount.currency)
        }
        let zero = Money(minorUnits: 0, currency: amount.currency)
        work.record(SandboxTransaction(id: id, kind: .refund, reference: request.reference, authorized: amount,
                                       captured: zero, refunded: zero, voided: false, parentID: original.id,
                                       result: result))
        return result
    }

    private static func notFound() -> GatewayResult {
        .error("transaction_not_found", retryable: false, text: "No approved transaction with that id.")
    }

    private static func currencyMismatch() -> GatewayResult {
        .error("currency_mismatch", retryable: false, text: "The currency differs from the original transaction's.")
    }
}
