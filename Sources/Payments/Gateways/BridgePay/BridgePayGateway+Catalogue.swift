extension BridgePayGateway {
    /// BridgePay in the gateway catalogue: `username`, `password`, `merchantCode`,
    /// `merchantAccountCode`; an override without a path gets `/PaymentService/RequestHandler.svc`.
    public static let catalogueEntry = GatewayEntry(
        name: "bridgepay", credentialNames: ["username", "password", "merchantCode", "merchantAccountCode"],
        defaultURL: BridgePayWire.productionURL, urlRule: .defaultPath(BridgePayWire.endpointPath),
        makeAdapter: { context in
            BridgePayGateway(username: context.credential("username"), password: context.credential("password"),
                             merchantCode: context.credential("merchantCode"),
                             merchantAccountCode: context.credential("merchantAccountCode"), endpoint: context.endpoint,
                             httpClient: context.httpClient, timeout: context.timeout, logger: context.logger)
        })
}
