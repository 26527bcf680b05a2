extension AuthorizeNetGateway {
    /// Authorize.Net in the gateway catalogue: API login ID (`name`) and `transactionKey`; an
    /// override without a path gets `/xml/v1/request.api`.
    public static let catalogueEntry = GatewayEntry(
        name: "authorizenet", aliases: ["authorize.net", "authorize_net"], credentialNames: ["name", "transactionKey"],
        defaultURL: productionURL, urlRule: .defaultPath(endpointPath), preChecks: preChecks,
        makeAdapter: { context in
            AuthorizeNetGateway(apiLoginID: context.credential("name"), transactionKey: context.credential("transactionKey"),
                                endpoint: context.endpoint, httpClient: context.httpClient, timeout: context.timeout,
                                logger: context.logger)
        })
}

extension AuthorizeNetGateway {
    /// AnetApiSchema.xsd: `creditCardSimpleType.cardNumber` maxLength 16, `orderType.invoiceNumber`
    /// maxLength 20; amounts in dollars and cents (the API reference: "Up to 15 digits with a
    /// decimal point"), so a 3-decimal currency cannot be expressed.
    public static let preChecks = GatewayPreChecks(cardNumberLengths: 12...16, maximumReferenceLength: 20, amountFractionDigits: 2)
}
