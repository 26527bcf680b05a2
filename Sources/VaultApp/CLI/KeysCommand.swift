import ArgumentParser
import Foundation
import Logging
import Payments
import Scheduler
import Vault

/// `vault keys init|rotate|status`: the master key and the key hierarchy.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Master key management.", subcommands: [Init.self, Rotate.self, Status.self])

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the master key file (mode 0600) if absent; run again, it changes nothing.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let configuration = try global.loadConfiguration()
            let source = MasterKeySource(configuration: configuration.keys)
            if try source.initialize(configuration: configuration.keys) {
                // Said in full: run from an unexpected directory, the operator sees where the key went
                // and which configuration put it there.
                print("created \(source.summary) (configuration: \(configuration.fileSummary))")
            } else {
                print("\(source.summary) already present; nothing changed")
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new master key version and rewrap every merchant key under it; the server may keep running.",
            discussion: """
                With a key file, a new version is added to it, keys are rewrapped in batches, and older versions are \
                then moved from the file to retired.key beside it (unless --keep-old), which servers never read and \
                `vault restore` reads to open backups taken before the rotation. With VAULT_MASTER_KEY, give the new key as the highest \
                version ("1:OLD,2:NEW"); rotation rewraps onto it and you may then drop the old one. With \
                VAULT_MASTER_PASSPHRASE, rotation changes the passphrase: give the new one in VAULT_NEW_MASTER_PASSPHRASE (or \
                with --new-passphrase-stdin); it derives a new version with a fresh salt, every key is rewrapped onto it, and \
                then the salt file is replaced. Stop the servers first and start them with the new passphrase.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Keep retired versions in the key file (instead of moving them to retired.key).")
        var keepOld = false

        @Flag(help: "Rotate the merchants' data keys instead: a new data key each, then re-encrypt every record in batches.")
        var data = false

        @Option(help: "With --data, only this merchant.")
        var merchant: String?

        @Flag(help: "With VAULT_MASTER_PASSPHRASE: read the new passphrase from the first line of standard input (instead of VAULT_NEW_MASTER_PASSPHRASE).")
        var newPassphraseStdin = false

        func run() async throws {
            // Read before anything else, then removed from the environment with the other secrets.
            let newPassphraseFromEnvironment = ProcessInfo.processInfo.environment["VAULT_NEW_MASTER_PASSPHRASE"]
            let configuration = try global.loadConfiguration()
            if data {
                try await rotateDataKeys(configuration)
                return
            }
            VaultLogging.bootstrap(configuration.logging)
            let source = MasterKeySource(configuration: configuration.keys)
            let logger = Logger(label: "vault.keys")
            if case .passphrase(let saltPath) = source {
                let change = PassphraseChange(
                    configuration: configuration, saltPath: saltPath, oldPassphrase: configuration.keys.passphraseFromEnvironment ?? "",
                    newPassphrase: try newPassphrase(fromEnvironment: newPassphraseFromEnvironment), logger: logger)
                try await change.run()
                return
            }
            var ring = try source.load(configuration: configuration.keys)
            if case .file(let path) = source {
                let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger)
                runtime.close()
                ring = try ring.addingNewVersion()
                try MasterKeyFile.write(ring, to: path)
                print("added master key version \(ring.currentVersion) to \(path)")
            }
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger)
            defer { runtime.close() }
            let count = try await runtime.keyring.rewrapAll(actor: "cli")
            print("rewrapped \(count) merchant keys under master key version \(runtime.keyring.currentMasterKeyVersion)")
            if case .file(let path) = source, !keepOld {
                // Archived before they leave the key file: a backup taken before this rotation
                // still has its keys wrapped under them, and `vault restore` reads the archive.
                let archive = RetiredKeyArchive.path(besideKeyFile: path)
                let archived = try RetiredKeyArchive.archive(versionsBelowCurrentOf: ring, at: archive)
                try MasterKeyFile.write(ring.removing(versionsBelow: ring.currentVersion), to: path)
                print("removed retired versions from \(path)")
                if !archived.isEmpty {
                    print("kept retired version(s) \(archived.map(String.init).joined(separator: ", ")) in \(archive): back it up with the key file, "
                        + "a backup taken before this rotation needs it to be restored")
                }
            }
        }

        /// The new master passphrase: the first line of standard input with `--new-passphrase-stdin`,
        /// else `VAULT_NEW_MASTER_PASSPHRASE`.
        private func newPassphrase(fromEnvironment: String?) throws -> String {
            let value = newPassphraseStdin ? readLine(strippingNewline: true) : fromEnvironment
            guard let value, !value.isEmpty else {
                throw RotationRefused(
                    "the master key comes from VAULT_MASTER_PASSPHRASE: rotating it changes the passphrase. Give the new one in "
                        + "VAULT_NEW_MASTER_PASSPHRASE or on standard input with --new-passphrase-stdin")
            }
            return value
        }

        private func rotateDataKeys(_ configuration: VaultConfiguration) async throws {
            VaultLogging.bootstrap(configuration.logging)
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.keys"))
            defer { runtime.close() }
            var merchants = try await runtime.store.merchants().filter { $0.status == .active }
            if let merchant {
                merchants = merchants.filter { $0.name == merchant }
                guard !merchants.isEmpty else { throw MerchantError.notFound(merchant) }
            }
            var versions: [String: Int] = [:]
            for merchant in merchants {
                versions[merchant.id] = try await runtime.merchants.rotateDataKey(merchantID: merchant.id, actor: "cli")
            }
            // Running servers notice the new versions through the key generation within a bound; wait
            // until every one seals with the new key, so the re-encryption pass leaves no record behind.
            try await Task.sleep(for: runtime.keyring.keyChangePropagationBound + .seconds(1))
            var heldBack = false
            for merchant in merchants {
                let done = try await runtime.resealUnderNewestDataKey(merchantID: merchant.id, actor: "cli")
                heldBack = heldBack || !done.destroyedKeyCopiesDiscarded
                let gone = done.destroyedVersions.isEmpty ? "" : ", destroyed data key version(s) \(done.destroyedVersions.map(String.init).joined(separator: ", "))"
                print("merchant \(merchant.name): data key version \(versions[merchant.id] ?? 0), re-encrypted \(done.cards) cards,"
                    + " \(done.idempotentResponses) stored idempotent responses, \(done.scheduleContacts) schedules' receipt contacts,"
                    + " \(done.receiptAddresses) transactions' receipt addresses, \(done.receipts) e-mail receipts, \(done.webhookEvents) webhook"
                    + " events and \(done.captureSessions) capture sessions\(gone)")
            }
            if heldBack { print(VaultRuntime.destroyedKeyCopiesHeldBack) }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the master key source, versions and what each version wraps.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() async throws {
            let configuration = try global.loadConfiguration()
            VaultLogging.bootstrap(configuration.logging)
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.keys"))
            defer { runtime.close() }
            let versions = try await runtime.store.kekVersions()
            let counts = try await runtime.store.wrappedKeyCounts()
            let merchants = try await runtime.store.merchants()
            let dataKeys = try await runtime.store.dataKeySummary()
            let auditKEK = try await runtime.store.auditKeyKEKVersion()
            let current = runtime.keyring.currentMasterKeyVersion
            let period = configuration.keys.cryptoperiodDays
            let age = versions.first { $0.version == current }.map { CryptoperiodCheck(createdAt: $0.createdAt, cryptoperiodDays: period) }
            if json {
                let object: [String: Any] = [
                    "source": runtime.keySource.summary,
                    "currentVersion": runtime.keyring.currentMasterKeyVersion,
                    "versions": versions.map { record in
                        [
                            "version": record.version, "status": record.retiredAt == nil ? "active" : "retired",
                            "createdAt": Timestamp.string(record.createdAt), "wrappedKeys": counts[record.version] ?? 0,
                        ] as [String: Any]
                    },
                    "merchants": merchants.count,
                    "dataKeys": [
                        "live": dataKeys.live, "supersededInUse": dataKeys.supersededLive, "destroyedAfterRotation": dataKeys.destroyedAfterRotation,
                    ],
                    "auditKeyWrappedUnder": auditKEK ?? 0,
                    "cryptoperiodDays": period,
                    "currentVersionAgeDays": age?.ageDays ?? 0,
                    "pastCryptoperiod": age?.isPast ?? false,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            print("master key source: \(runtime.keySource.summary)")
            print("current version:   \(current)" + (age.map { ", \($0.ageDays) days old (cryptoperiod \(period) days)" } ?? ""))
            if let age, age.isPast {
                print("warning: master key version \(current) is \(age.ageDays) days old, past keys.cryptoperiodDays (\(period)): run `vault keys rotate`")
            }
            for record in versions {
                let state = record.retiredAt.map { "retired \(Timestamp.string($0))" } ?? "active"
                print("  version \(record.version): \(state), wraps \(counts[record.version] ?? 0) merchant keys")
            }
            print("merchants:         \(merchants.count)")
            print("data keys:         \(dataKeys.live) live (\(dataKeys.supersededLive) superseded, still used by records), "
                + "\(dataKeys.destroyedAfterRotation) destroyed after rotation")
            print("audit key:         " + (auditKEK.map { "wrapped under master key version \($0)" } ?? "not created yet"))
        }
    }
}

/// `keys rotate` refused for a key source that cannot be rotated: printed as the error, exit 1.
struct RotationRefused: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
