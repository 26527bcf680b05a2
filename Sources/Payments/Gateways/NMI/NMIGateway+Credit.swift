import Vault

extension NMIGateway {
    /// NMI's Direct Post API has `type=credit`.
    public var supportsCredit: Bool { true }

    /// `type=credit` with the full card: "Credits apply an amount to the cardholder's card that was
    /// not originally processed through the Gateway" (NMI Direct Post API, Transaction Types). The
    /// merchant account must have credits enabled; otherwise NMI answers an error, passed on.
    public func credit(_ request: ChargeRequest) async -> GatewayResult {
        guard request.amount.minorUnits > 0 else { return Self.invalidAmount }
        var request = request
        request.card.cvv = nil
        return await transact(requests.charge(type: "credit", request, amount: request.amount), operation: "credit",
                              reference: request.reference, reconcile: true)
    }
}
