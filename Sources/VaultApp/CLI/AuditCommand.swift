import ArgumentParser
import Logging
import Scheduler
import Vault

/// `vault audit verify`: walks the hash chain of the audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Audit log tools.", subcommands: [Verify.self, Upgrade.self])

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
                // The head, for an external anchor (compare it with the one printed last time).
                let head = try await runtime.store.auditChainHead() ?? "0"
                print("audit chain intact: \(events) events, head \(head)")
                Logger(label: "vault.audit").notice("audit chain verified", metadata: ["events": "\(events)", "head": "\(head)"])
            case .broken(let sequence, let reason):
                print("audit chain BROKEN at event \(sequence): \(reason)")
                throw ExitCode.failure
            }
        }
    }

    struct Upgrade: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Key an audit chain written by a build before the keyed chain (run once, after upgrading).",
            discussion: """
                Checks the unkeyed chain, creates the audit key (wrapped under the master key) and appends an \
                audit.key_created event whose MAC covers the last unkeyed event. Refused if the unkeyed chain is broken. \
                A server refuses to start on such a database until this has run: events without a key cannot be told \
                apart from a chain an attacker recomputed after deleting the key.
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let configuration = try global.loadConfiguration()
            VaultLogging.bootstrap(configuration.logging)
            let runtime = try await VaultRuntime.open(
                configuration: configuration, logger: Logger(label: "vault.audit"), upgradingUnkeyedAuditChain: true)
            defer { runtime.close() }
            print("audit chain keyed; head \(try await runtime.store.auditChainHead() ?? "0")")
        }
    }
}
