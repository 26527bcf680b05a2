extension AuthorizeNetGateway {
    /// Authorize.Net takes unlinked credits (refunds without `refTransId`).
    public var supportsCredit: Bool { true }

    /// `refundTransaction` with the full card number and expiry and no `refTransId`: an unlinked
    /// credit (Authorize.Net API reference, "Refund a Transaction": "to issue an unlinked refund,
    /// ... requires Expanded Credit Capabilities (ECC)"). An account without ECC approval is
    /// answered with an error (reason 54 or 0), passed on as the gateway's refusal.
    public func credit(_ request: ChargeRequest) async -> GatewayResult {
        var request = request
        request.card.cvv = nil
        return await charge(.refund, request, amount: request.amount, operation: "credit")
    }
}
