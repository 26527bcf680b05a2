extension BridgePayGateway {
    /// BridgePay in the gateway catalogue: `username`, `password`, `merchantCode`,
    /// `merchantAccountCode`; an override without a path gets `/PaymentService/RequestHandler.svc`.
    public static let catalogueEntry = GatewayEntry(
        name: "bridgepay", credentialNames: ["username", "password", "merchantCode", "merchantAccountCode"],
        defaultURL: BridgePayWire.productionURL, urlRule: .defaultPath(BridgePayWire.endpointPath), preChecks: preChecks,
        makeAdapter: { context in
            BridgePayGateway(username: context.credential("username"), password: context.credential("password"),
                             merchantCode: context.credential("merchantCode"),
                             merchantAccountCode: context.credential("merchantAccountCode"), endpoint: context.endpoint,
                             httpClient: context.httpClient, timeout: context.timeout, logger: context.logger)
        })
}

extension BridgePayGateway {
    /// The PayGuardian guide's `PaymentAccountNumber` is 13-16 digits; amounts are cents (two
    /// decimals). Any reference is taken: the 12-character alphanumeric invoice number is derived from
    /// it (``BridgePayInvoiceNumber``), never truncated. USD only, the one currency BridgeComm
    /// documents: another is refused before anything is sent (422 `unsupported_currency`).
    public static let preChecks = GatewayPreChecks(cardNumberLengths: BridgePayWire.cardNumberLengths, amountFractionDigits: 2,
                                                   currencies: [BridgePayWire.currencyCode])
}
