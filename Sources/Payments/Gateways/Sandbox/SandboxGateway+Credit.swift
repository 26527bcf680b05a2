extension SandboxGateway {
    /// The sandbox takes credits.
    public var supportsCredit: Bool { true }

    /// Returns money to a card without an earlier sale; the test cards decline it as they decline
    /// a sale. Recorded as a refund without a parent.
    public func credit(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, kind: .refund)
    }
}
