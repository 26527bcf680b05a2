extension NMIGateway {
    /// NMI in the gateway catalogue: one `security_key`; the URL is a base the adapter appends
    /// `/api/transact.php` and `/api/query.php` to.
    public static let catalogueEntry = GatewayEntry(
        name: "nmi", credentialNames: ["security_key"], defaultURL: defaultBaseURL, preChecks: preChecks,
        makeAdapter: { context in
            NMIGateway(securityKey: context.credential("security_key"), baseURL: context.endpoint,
                       httpClient: context.httpClient, timeout: context.timeout, logger: context.logger)
        })
}

extension NMIGateway {
    /// NMI's Payment API documents `amount` as "Format: x.xx" and no length for `ccnumber` or
    /// `orderid`: card numbers and references as the vault takes them, amounts in two decimals.
    public static let preChecks = GatewayPreChecks(amountFractionDigits: 2)
}
