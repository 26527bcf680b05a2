/// The order reference a gateway stores with a charge, as an operator finds it in the gateway's own
/// portal and reports.
///
/// Every transaction keeps our reference (``Transaction/orderReference``, at most 20 characters);
/// most adapters send it as it is (Authorize.Net `invoiceNumber`, NMI `orderid`, the sandbox), but
/// BridgePay takes 1-12 letters and digits, so its adapter sends the invoice number derived from it
/// (``BridgePayInvoiceNumber``). Searching BridgePay's portal for our reference finds nothing; this
/// gives the value that was on the wire.
public enum GatewayOrderReference {
    /// The reference `gateway` (an adapter name, e.g. `bridgepay`) was sent for our `reference`.
    public static func sent(_ reference: String, gateway: String) -> String {
        let name = GatewayCatalogue.entry(configuredName: gateway)?.name ?? gateway
        switch name {
        case "bridgepay": return BridgePayInvoiceNumber.of(reference)
        default: return reference
        }
    }
}
