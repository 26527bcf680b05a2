extension SandboxGateway {
    /// The sandbox in the gateway catalogue: no credentials, in process; every sandbox merchant
    /// shares the registry's one instance.
    public static let catalogueEntry = GatewayEntry(
        name: "sandbox", credentialNames: [], defaultURL: nil, preChecks: GatewayPreChecks(),
        makeAdapter: { context in context.sandbox })
}
