extension AuthorizeNetGateway {
    /// Authorize.Net verifies with an `authOnlyTransaction` of one minor unit that is voided at once
    /// (``verify(_:)``): one found approved after its answer was lost still holds that amount.
    public var verificationHoldsFunds: Bool { true }
}
