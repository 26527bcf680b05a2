import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Scheduler
import Vault
import VaultAPI

/// `vault serve`: migrates, then serves the HTTP API until SIGTERM/SIGINT, finishing in-flight requests.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the HTTP API (migrates on start; SIGTERM/SIGINT finish in-flight requests and exit 0).")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Create this development merchant (sandbox gateway) on first start and print its admin API key once.")
    var devMerchant: String?

    func run() async throws {
        let configuration = try global.loadConfiguration()
        // Before the database is opened: a refused listener touches nothing.
        try VaultHTTPServer.checkPlaintext(configuration.server)
        VaultLogging.bootstrap(configuration.logging)
        var logger = Logger(label: "vault.server")
        logger.logLevel = configuration.logging.level
        if !ProcessHardening.disableCoreDumps() { logger.warning("could not turn core dumps off") }
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger, database: .createIfMissing)
        defer { runtime.close() }
        if let devMerchant {
            try await ensureDevelopmentMerchant(devMerchant, runtime: runtime)
        }
        let reload = Self.reloadKeysOnSIGHUP(runtime: runtime, logger: logger)
        defer { reload.cancel() }
        let rotationWatch = Task { await Self.logMasterKeyRotations(runtime: runtime, logger: logger) }
        defer { rotationWatch.cancel() }
        let app = try buildApplication(runtime: runtime, logger: logger) { port in
            print("vault listening on \(configuration.server.tls == nil ? "http" : "https")://\(configuration.server.host):\(port)")
            fflush(nil)
        }
        try await app.runService()
        logger.info("server stopped")
    }

    /// Logs once each time the server starts using a new master key version (after `keys rotate`
    /// by another process, picked up on the first key it could not open, at `/readyz` or on
    /// SIGHUP), so the on-call sees when every server has moved. Reads a value in memory each second.
    private static func logMasterKeyRotations(runtime: VaultRuntime, logger: Logger) async {
        var inUse = runtime.keyring.currentMasterKeyVersion
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = runtime.keyring.currentMasterKeyVersion
            guard now != inUse else { continue }
            logger.notice("master key rotation picked up", metadata: ["version": "\(now)", "previousVersion": "\(inUse)"])
            inUse = now
        }
    }

    /// SIGHUP reads the master key source again (after `keys rotate` by another process); keys
    /// wrapped under a version not held also trigger a reload on their own.
    private static func reloadKeysOnSIGHUP(runtime: VaultRuntime, logger: Logger) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do {
                if let versions = try runtime.keyring.reloadMasterKeys() {
                    logger.notice("master key source reloaded", metadata: ["versions": "\(versions)"])
                } else {
                    logger.notice("SIGHUP: the master key source (\(runtime.keySource.summary)) is read at start only")
                }
            } catch {
                logger.error("master key source reload failed; the keys in memory are kept", metadata: ["error": "\(error)"])
            }
        }
        source.resume()
        return source
    }

    private func ensureDevelopmentMerchant(_ name: String, runtime: VaultRuntime) async throws {
        if try await runtime.store.merchant(named: name) != nil {
            print("development merchant '\(name)' exists; its API key was printed when it was created (issue another: vault merchant key \(name))")
            return
        }
        let (merchant, key) = try await runtime.merchants.create(
            name: name, role: .admin, settings: MerchantSettings(gateway: "sandbox"), actor: "cli")
        print("created development merchant '\(merchant.name)' (\(merchant.id)) on the sandbox gateway")
        print("API key (admin, shown once): \(key.bearer)")
        fflush(nil)
    }
}
