import Payments
import Vault
public import VaultConsole

extension APIServices {
    /// The operator console's services: the same store, keyring and card service as the API's.
    public var console: ConsoleServices {
        ConsoleServices(
            operators: OperatorService(store: store, keyring: keyring, policy: consolePolicy), cards: cards, transactions: transactions,
            searchWindow: TransactionSearchWindow(scanLimit: server.searchScanLimit), audit: store, merchants: store,
            secureCookies: ConsoleServices.secureCookies(host: server.host, tls: server.tls != nil))
    }
}
