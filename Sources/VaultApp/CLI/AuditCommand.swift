import ArgumentParser
import Foundation
import Logging
import Scheduler
import Vault

/// `vault audit verify`: walks the hash chain of the audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Audit log tools.", subcommands: [Verify.self, Upgrade.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that no audit event was edited, inserted or deleted, and that no bound row was altered (exit 1 if either fails).",
            discussion: """
                Walks the audit chain, then checks every bound row of the merchants in service: cards (their sealed \
                record with its metadata), API keys, schedules and their steps. A row altered, inserted or stripped of its \
                binding in the database is named by its id (never card data).
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .long, help: "Print one JSON object: the chain's result and head, and the bound rows checked and failing.")
        var json = false

        @Option(
            name: .customLong("expect-head"),
            help: "A head printed by an earlier verify and kept outside the database (repeatable; PostgreSQL's comma-separated list as printed): fail if the chain no longer holds it (the database was rolled back or chains were removed).")
        var expectedHeads: [String] = []

        func run() async throws {
            let configuration = try global.loadConfiguration()
            VaultLogging.bootstrap(configuration.logging)
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.audit"))
            defer { runtime.close() }
            var chain: [String: AuditValue] = [:]
            var lines: [String] = []
            let chainIntact: Bool
            switch try await runtime.store.verifyAuditChain() {
            case .intact(let events):
                // The head, for an external anchor (compare it with the one printed last time).
                let head = try await runtime.store.auditChainHead() ?? "0"
                lines.append("audit chain intact: \(events) events, head \(head)")
                chain = ["intact": .bool(true), "events": .int(Int(events)), "head": .string(head)]
                chainIntact = true
                Logger(label: "vault.audit").notice("audit chain verified", metadata: ["events": "\(events)", "head": "\(head)"])
            case .broken(let sequence, let reason):
                lines.append("audit chain BROKEN at event \(sequence): \(reason)")
                chain = ["intact": .bool(false), "brokenAt": .int(Int(sequence)), "reason": .string(reason)]
                chainIntact = false
            }
            var missing: [String] = []
            for head in expectedHeads.flatMap({ $0.split(separator: ",").map(String.init) }) {
                guard let held = try await runtime.store.auditChainHolds(head) else {
                    throw ValidationError("--expect-head \(head) is not a head as verify prints it")
                }
                if !held { missing.append(head) }
            }
            if !missing.isEmpty {
                lines.append("audit chain ROLLED BACK or cut: it no longer holds the kept head(s) \(missing.joined(separator: ", "))")
                chain["missingHeads"] = .strings(missing)
            }
            let rows = try await BoundRowCheck(store: runtime.store, keyring: runtime.keyring).run()
            if rows.isIntact {
                let counts = rows.checked.keys.sorted().map { "\(rows.checked[$0] ?? 0) \($0)" }
                lines.append("bound rows intact: " + (counts.isEmpty ? "none stored" : counts.joined(separator: ", ")))
            } else {
                for kind in rows.tampered.keys.sorted() where !(rows.tampered[kind] ?? []).isEmpty {
                    lines.append("bound rows ALTERED in \(kind): " + (rows.tampered[kind] ?? []).joined(separator: ", "))
                }
            }
            if json {
                let object = VerifyResult(chain: chain, rows: rows, intact: chainIntact && missing.isEmpty && rows.isIntact)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(object), as: UTF8.self))
            } else {
                lines.forEach { print($0) }
            }
            if !chainIntact || !missing.isEmpty || !rows.isIntact { throw ExitCode.failure }
        }
    }

    /// `vault audit verify --json`.
    struct VerifyResult: Encodable {
        var chain: [String: AuditValue]
        var rows: BoundRowReport
        var intact: Bool
    }

    /// A value of the chain's result in `--json`.
    enum AuditValue: Encodable {
        case bool(Bool)
        case int(Int)
        case string(String)
        case strings([String])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .strings(let value): try container.encode(value)
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
