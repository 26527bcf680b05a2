/// Every BridgeComm wire detail in one place: names, codes and values the adapter and its fake
/// agree on. Each says where it comes from (see `docs/GATEWAYS.md`, "BridgePay"); the ones marked
/// **guess** could not be confirmed in a published document and are only here, so a correction
/// is one edit.
///
/// Sources: the PayGuardian iOS integration guide ("the guide"), the Beyond Pay developer
/// documentation (`getbeyondpay/docs`, `source/index.html.md`: BridgeComm is Beyond Pay's SOAP
/// API under its earlier name) and the official Beyond Pay WooCommerce plugin's SDK
/// (`getbeyond/beyondpay_woocommerce`, `includes/beyond-pay.php`).
public enum BridgePayWire {
    // MARK: Transport (WooCommerce SDK `SOAPMessenger`, docs "Token Sale")

    /// The production BridgeComm `RequestHandler.svc` endpoint (guide: `bridgeCommURL`, test host
    /// `www.bridgepaynetsecuretest.com`; production host from the BridgePay integrations' URLs).
    public static let productionURL = "https://www.bridgepaynetsecuretx.com/PaymentService/RequestHandler.svc"
    /// The path appended to an override that names only a host.
    public static let endpointPath = "/PaymentService/RequestHandler.svc"
    /// SOAP 1.1 content type, as the official SDK sends it.
    static let contentType = "text/xml; charset=utf-8"
    /// The SOAP action of `ProcessRequest` (the official SDK's `SOAP_ACTION_VALUE`).
    static let soapAction = "http://bridgepaynetsecuretx.com/requesthandler/IRequestHandler/ProcessRequest"
    /// The namespace of `ProcessRequest` and `requestMsg`.
    static let requestNamespace = "http://bridgepaynetsecuretx.com/requesthandler"
    /// `ClientIdentifier` (the official SDK always sends `SOAP`).
    static let clientIdentifier = "SOAP"

    // MARK: Request types (guide: BridgeCommResponse.RequestType)

    /// Authorization request: sale, sale-auth, account verification.
    static let authorization = "004"
    /// Void/Refund request.
    static let voidRefund = "012"
    /// Capture request.
    static let capture = "019"
    /// Find transaction request.
    static let findTransaction = "023"

    // MARK: `TransactionType` values

    /// Sale (docs "Token Sale": `sale`).
    static let sale = "sale"
    /// Authorization only (docs "Token Authorize": `sale-auth`).
    static let saleAuth = "sale-auth"
    /// Capture of a sale-auth (WooCommerce SDK `capture_authorised_payment`).
    static let captureType = "capture"
    /// Refund, also the void (docs "Refunds & Voids": "simply construct an XML message with
    /// `RequestType` of `012` and `TransactionType` of `refund`. Note that if the original
    /// transaction is still in an unsettled batch, the gateway will perform a void/reversal
    /// transaction"). No document shows a BridgeComm value for the guide's
    /// `TRANSACTION_TYPE_VOID`, so a void is sent as this documented `refund`.
    static let refund = "refund"
    /// Account verification. **Guess**: the guide lists `TRANSACTION_TYPE_ACCOUNT_VERIFICATION`
    /// ("used to verify a credit card is valid"); its BridgeComm value is not published.
    static let accountVerification = "account-verification"

    // MARK: Card-not-present flags (docs: TransIndustryType, AcctType, HolderType)

    /// `TransIndustryType` `EC` (eCommerce): card not present. The SDK's `cardPresent` defaults to
    /// true (guide); server-side charges of a stored card are never card present.
    static let ecommerce = "EC"
    /// `AcctType` `R`: branded credit card (docs, TransactionRow).
    static let creditAccount = "R"
    /// `HolderType` `P`: personal account (docs, TransactionRow; `O` is business).
    static let personalHolder = "P"
    /// `SoftwareVendor`: our name and version, as the docs ask.
    static let softwareVendor = "Vault 1.0"

    // MARK: Stored credentials
    /// `StoredCredential` with value `recurring` on a charge of a stored card (docs "Repeat Sales
    /// and Cards-on-File"). Other values (a first, customer-initiated use) are not published.
    static let storedCredentialElement = "StoredCredential"
    /// The documented subsequent, merchant-initiated recurring value.
    static let storedCredentialRecurring = "recurring"
    /// The reply field kept as the network transaction id of a first use: `NetworkReferenceNumber`
    /// (guide: "unique ID of a transaction at the processor"). **Guess** that it is the id card
    /// networks want referred to; BridgeComm publishes no request field to send it back in, so
    /// recurring charges carry only `StoredCredential`.
    static let networkReferenceElement = "NetworkReferenceNumber"

    /// The `StoredCredential` value for a use of a stored card, or `nil` when BridgePay publishes
    /// none: only the merchant-initiated recurring charge has a documented value.
    static func storedCredentialValue(_ use: StoredCredentialUse) -> String? {
        switch use {
        case .recurring: storedCredentialRecurring
        case .initial, .customerInitiated: nil
        }
    }

    // MARK: Find transaction (guide: `BPNFindRequest` takes an `invoiceNumber`, a `gatewayTransID`
    // and a `purchaseToken`; its response field `TransactionCode` is "Reserved for future use")

    /// The element carrying the gateway transaction id to find. **Guess** at BridgeComm's spelling:
    /// the guide's find request names it `gatewayTransID` and the official SDK's request message
    /// has a `GatewayTransID` field.
    static let findByGatewayIDElement = "GatewayTransID"
    /// The element carrying the invoice number to find: `InvoiceNum`, as every charge sends it
    /// (the guide's find request takes `invoiceNumber`).
    static let findByInvoiceElement = "InvoiceNum"

    // MARK: Field rules (guide: BPNPaymentRequest table)

    /// `InvoiceNumber`: required, 1-12 alphanumeric characters.
    static let invoiceNumberLength = 12
    /// `PaymentAccountNumber`: 13-16 digits.
    static let cardNumberLengths = 13...16
    /// `Amount`: at most 12 characters. BridgeComm amounts are implied-decimal cents (docs:
    /// "transaction amount in cents ($1.25 would be 125)").
    static let amountMaximumLength = 12
    /// `Username`: 5-25 characters.
    static let usernameLengths = 5...25
    /// `Password`: 7-25 characters.
    static let passwordLengths = 7...25
    /// The only currency BridgeComm amounts are documented in (`IsoCurrencyCode` USD in every
    /// reply; requests spell the currency `CurrencyCode` in one sample and `IsoCurrencyCode` in
    /// another, so none is sent and other currencies are refused before sending).
    static let currencyCode = "USD"
}
