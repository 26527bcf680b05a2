extension AuthorizeNetGateway {
    /// Authorize.Net in the gateway catalogue: API login ID (`name`) and `transactionKey`; an
    /// override without a path gets `/xml/v1/request.api`.
    public static let catalogueEntry = GatewayEntry(
        name: "authorizenet", aliases: ["authorize.net", "authorize_net"], credentialNames: ["name", "transactionKey"],
        defaultURL: productionURL, urlRule: .defaultPath(endpointPath),
        makeAdapter: { context in
            AuthorizeNetGateway(apiLoginID: context.credential("name"), transactionKey: context.credential("transactionKey"),
                                endpoint: context.endpoint, httpClient: context.httpClient, timeout: context.timeout,
                                logger: context.logger)
        })
}
