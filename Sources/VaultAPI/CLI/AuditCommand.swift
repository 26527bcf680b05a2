import ArgumentParser
import Logging
import Vault

/// `vault audit verify`: walks the hash chain of the audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Audit log tools.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that no audit event was edited, inserted or deleted (exit 1 if the chain is broken).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let configuration = try global.loadConfiguration()
            VaultLogging.bootstrap(configuration.logging)
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.audit"))
            defer { runtime.close() }
            switch try await runtime.store.verifyAuditChain() {
            case .intact(let events):
                print("audit chain intact: \(events) events")
            case .broken(let sequence, let reason):
                print("audit chain BROKEN at event \(sequence): \(reason)")
                throw ExitCode.failure
            }
        }
    }
}
