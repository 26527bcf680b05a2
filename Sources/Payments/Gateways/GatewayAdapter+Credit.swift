extension GatewayAdapter {
    /// Adapters take no credits unless they say so.
    public var supportsCredit: Bool { false }

    /// Refused without a call: the adapter has no refund-without-parent.
    public func credit(_ request: ChargeRequest) async -> GatewayResult {
        .error("credit_not_supported", retryable: false, text: "The \(name) gateway adapter does not send credits.")
    }
}
