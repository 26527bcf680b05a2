@testable import GatewayFakes
import Logging
import Payments
import Synchronization
import Testing
import Vault

/// Log lines captured by ``CapturingLogHandler``.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Everything logged, one line per event.
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// A log handler that keeps every rendered line, so tests can check what adapters log.
struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let line = "\(event.level) \(event.message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: " ")
        log.append(line)
    }
}

/// What adapters log never contains card data or credentials.
@Suite struct GatewayLoggingTests {
    typealias F = GatewayFixtures

    static let secrets = ["4111111111111111", "737", FakeAuthorizeNetServer.apiLoginID, FakeAuthorizeNetServer.transactionKey,
                          FakeNMIServer.securityKey]

    @Test func adaptersLogOutcomesButNeverCardDataOrCredentials() async throws {
        let captured = CapturedLog()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(log: captured) }
        let anet = try await FakeAuthorizeNetServer.start()
        let nmi = try await FakeNMIServer.start()
        let authorizeNet = AuthorizeNetGateway(apiLoginID: FakeAuthorizeNetServer.apiLoginID,
                                               transactionKey: FakeAuthorizeNetServer.transactionKey, endpoint: anet.url,
                                               timeout: .seconds(2), logger: logger)
        let nmiGateway = NMIGateway(securityKey: FakeNMIServer.securityKey, baseURL: nmi.baseURL,
                                    timeout: .seconds(2), logger: logger)
        let card = F.card("4111111111111111", cvv: "737", zip: "98004", holder: "Ada Lovelace")
        for gateway in [authorizeNet, nmiGateway] as [any GatewayAdapter] {
            _ = await gateway.sale(F.charge("a", reference: "LOG-1", card: card))
            _ = await gateway.sale(F.charge("b", reference: "LOG-1", card: card))
            _ = await gateway.verify(F.charge("c", reference: "LOG-2", amount: F.money(0), card: card))
        }
        anet.core.enqueue(.holdAfterProcessing)
        nmi.core.enqueue(.holdAfterProcessing)
        _ = await authorizeNet.sale(F.charge("d", reference: "LOG-3", card: card))
        _ = await nmiGateway.sale(F.charge("d", reference: "LOG-3", card: card))
        await anet.stop()
        await nmi.stop()
        let logged = captured.text
        #expect(logged.contains("operation=sale"))
        #expect(logged.contains("in_doubt(timeout)"))
        #expect(logged.contains("duplicate submission"))
        for secret in Self.secrets {
            expectAbsent(secret, in: logged, "the log")
        }
    }
}
