import Payments
import Scheduler
import Vault
public import VaultConsole

extension APIServices {
    /// The operator console's services: the same store, keyring and card service as the API's.
    public var console: ConsoleServices {
        ConsoleServices(
            operators: OperatorService(store: store, keyring: keyring, policy: consolePolicy), cards: cards, transactions: transactions,
            searchWindow: TransactionSearchWindow(scanLimit: server.searchScanLimit), audit: store, merchants: store, webhookEvents: webhookEvents,
            chargeRuns: ConsoleChargeRuns(
                history: ChargeRunHistory(store: store), run: { [store] id, merchantID in try await store.chargeRun(id: id, merchantID: merchantID) },
                start: { [self] merchant, asOf, dryRun, actor in
                    try await ChargeRunStarter(services: self).start(merchant: merchant, asOf: asOf, dryRun: dryRun, actor: actor)
                }),
            scheduling: ConsoleScheduling(
                schedules: schedules, reviewQueue: reviewQueue, idempotency: idempotency,
                gatewayTransactionIDProblem: { text in
                    do {
                        try ReviewResolutionRequest.check(text)
                        return nil
                    } catch ReviewResolutionError.invalid(_, _, let message) {
                        return message
                    } catch {
                        return "gatewayTransactionId is not valid."
                    }
                }),
            statistics: { [store] merchant, from, to, grouping, currency in
                try await TransactionStatistics.compute(
                    merchant: merchant, from: from, to: to, grouping: grouping, selection: StatisticsSelection(currency: currency), store: store)
            },
            secureCookies: ConsoleServices.secureCookies(host: server.host, tls: server.tls != nil), customFields: CustomFieldService(store: store),
            apiKeys: merchants)
    }
}
