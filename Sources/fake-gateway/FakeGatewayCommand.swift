import ArgumentParser
import Foundation
import GatewayFakes
import Logging
import ServiceLifecycle
import UnixSignals

/// `fake-gateway --gateway nmi|authorizenet|bridgepay [--port N] [--port-file F] [--ledger F]`: serves a gateway's
/// loopback fake (the same implementation the tests use) until SIGTERM or SIGINT.
@main
struct FakeGatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-gateway",
        abstract: "Serve a loopback fake of a payment gateway (tests and scripts/crash-test.sh).")

    @Option(help: "The gateway to imitate: \(FakeGatewayLauncher.gateways.joined(separator: ", ")).")
    var gateway: String

    @Option(help: "Port on 127.0.0.1 (0: chosen by the system).")
    var port: Int = 0

    @Option(help: "File to write the port to once the fake listens (written atomically).")
    var portFile: String?

    @Option(help: "File the fake appends every charge to before answering (bridgepay, authorizenet: type, invoice, id, result code).")
    var ledger: String?

    func validate() throws {
        guard FakeGatewayLauncher.gateways.contains(gateway) else {
            throw ValidationError("--gateway must be one of: \(FakeGatewayLauncher.gateways.joined(separator: ", "))")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0-65535") }
    }

    func run() async throws {
        var logger = Logger(label: "fake-gateway")
        logger.logLevel = .warning
        let service = FakeGatewayService(gateway: gateway, port: port, portFile: portFile, ledger: ledger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
    }
}

/// Runs one fake until the graceful shutdown.
struct FakeGatewayService: Service {
    let gateway: String
    let port: Int
    let portFile: String?
    let ledger: String?

    func run() async throws {
        let fake = try await FakeGatewayLauncher.start(gateway: gateway, port: port, ledger: ledger)
        if let portFile {
            try "\(fake.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        }
        print("fake \(fake.gateway) gateway listening at \(fake.url)")
        try? await gracefulShutdown()
        await fake.stop()
    }
}
