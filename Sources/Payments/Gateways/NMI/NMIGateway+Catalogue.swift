extension NMIGateway {
    /// NMI in the gateway catalogue: one `security_key`; the URL is a base the adapter appends
    /// `/api/transact.php` and `/api/query.php` to.
    public static let catalogueEntry = GatewayEntry(
        name: "nmi", credentialNames: ["security_key"], defaultURL: defaultBaseURL,
        makeAdapter: { context in
            NMIGateway(securityKey: context.credential("security_key"), baseURL: context.endpoint,
                       httpClient: context.httpClient, timeout: context.timeout, logger: context.logger)
        })
}
