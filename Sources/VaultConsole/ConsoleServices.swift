public import Payments
public import Vault

/// What the console serves over: the same domain services as the API (never a second path to
/// storage), and the listener's facts the session cookie depends on.
public struct ConsoleServices: Sendable {
    /// Operators, sign-ins and sessions.
    public var operators: OperatorService
    /// Secure cards (searches are audited under the operator).
    public var cards: SecureCardService
    /// Transactions: searches, details, refunds (through the same checks as the API's).
    public var transactions: TransactionService
    /// How many transactions one text search examines (`server.searchScanLimit`).
    public var searchWindow: TransactionSearchWindow
    /// The audit chain, read by the Audit screen.
    public var audit: any AuditStore
    /// Merchants, to know which an operator may see.
    public var merchants: any MerchantStore
    /// Webhook events: the Webhooks screen's list and resend (the API's service).
    public var webhookEvents: WebhookEventService
    /// Charge runs: the history, one run, and the API's starter.
    public var chargeRuns: ConsoleChargeRuns
    /// Schedules, the plan builder and the review queue: the API's services.
    public var scheduling: ConsoleScheduling
    /// A merchant's turnover per period and currency from `from` through `to` (local dates), in one
    /// currency when given: the API's statistics (`TransactionStatistics.compute`).
    public var statistics: @Sendable (_ merchant: Merchant, _ from: CivilDate, _ to: CivilDate, _ grouping: StatisticsGrouping, _ currency: Currency?)
        async throws -> TransactionStatistics
    /// Custom field definitions: the Settings screen's list, add and remove (the API's service).
    public var customFields: CustomFieldService
    /// Merchants' API keys: the Settings screen's list, issue and revoke (the CLI's service).
    public var apiKeys: MerchantService
    /// Whether the session cookie carries `Secure`: always, unless the server speaks plain HTTP on
    /// a loopback address (local use, where a browser would not send a `Secure` cookie back).
    public var secureCookies: Bool

    public init(
        operators: OperatorService, cards: SecureCardService, transactions: TransactionService, searchWindow: TransactionSearchWindow,
        audit: any AuditStore, merchants: any MerchantStore, webhookEvents: WebhookEventService, chargeRuns: ConsoleChargeRuns,
        scheduling: ConsoleScheduling,
        statistics: @escaping @Sendable (Merchant, CivilDate, CivilDate, StatisticsGrouping, Currency?) async throws -> TransactionStatistics,
        secureCookies: Bool, customFields: CustomFieldService, apiKeys: MerchantService
    ) {
        self.operators = operators
        self.cards = cards
        self.transactions = transactions
        self.searchWindow = searchWindow
        self.audit = audit
        self.merchants = merchants
        self.webhookEvents = webhookEvents
        self.chargeRuns = chargeRuns
        self.scheduling = scheduling
        self.statistics = statistics
        self.secureCookies = secureCookies
        self.customFields = customFields
        self.apiKeys = apiKeys
    }

    /// Whether a listener on `host` without TLS is the one case the cookie goes without `Secure`.
    public static func secureCookies(host: String, tls: Bool) -> Bool {
        tls || !["127.0.0.1", "::1", "localhost"].contains(host)
    }
}
