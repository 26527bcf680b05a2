public import ArgumentParser
import Foundation
import Logging
import Payments
import Scheduler
public import Vault

/// `vault merchant create|update|list|show|key|offboard`.
struct MerchantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merchant", abstract: "Merchants and their API keys.",
        subcommands: [Create.self, Update.self, List.self, Show.self, Key.self, WebhookSecret.self, Offboard.self])

    /// Settings shared by create and update.
    struct SettingOptions: ParsableArguments {
        @Option(help: "Gateway adapter: \(GatewayCatalogue.namesSentence).")
        var gateway: String?

        @Option(help: "Gateway endpoint URL (overrides the adapter's default).")
        var gatewayUrl: String?

        @Option(help: ArgumentHelp(
            "Gateway credential KEY=VALUE, repeatable (\(GatewayCatalogue.credentialsSentence)).",
            discussion: "KEY=@PATH reads the value from a file and KEY=- from standard input (one line), so the secret appears neither in `ps` nor in shell history."))
        var gatewayCredential: [String] = []

        @Option(help: "IANA time zone of the merchant.")
        var timeZone: String?

        @Option(help: "Webhook endpoint URL.")
        var callbackUrl: String?

        @Option(help: "Verify cards with the gateway on registration unless a request says otherwise (true/false).")
        var verifyOnRegistration: Bool?

        @Option(help: "Allow credits, refunds not tied to an earlier sale (true/false; default false).")
        var allowCredit: Bool?

        @Option(help: "ISO 4217 currency of the gateway account, in which cards are verified (default USD).")
        var currency: String?

        func settings() throws -> MerchantSettings {
            var credentials: [String: String]?
            if !gatewayCredential.isEmpty {
                credentials = try CredentialArguments.parse(gatewayCredential)
            }
            return MerchantSettings(
                gateway: gateway, gatewayURL: gatewayUrl, gatewayCredentials: credentials, timeZone: timeZone,
                callbackURL: callbackUrl, verifyOnRegistration: verifyOnRegistration, allowCredit: allowCredit, currency: currency)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a merchant and its first API key (printed once).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name: 1-64 letters, digits, '.', '_' or '-'.")
        var name: String

        @Option(help: "Role of the first API key: admin, readonly or runner.")
        var role: APIKeyRole = .admin

        @OptionGroup var settings: SettingOptions

        @Flag(help: "Print one JSON object {\"merchantId\", \"apiKey\"}.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                let (merchant, key) = try await runtime.merchants.create(name: name, role: role, settings: try settings.settings(), actor: "cli")
                if json {
                    printJSON(["merchantId": merchant.id, "apiKey": key.bearer])
                } else {
                    print("created merchant \(merchant.name) (\(merchant.id)), gateway \(merchant.gateway.name), time zone \(merchant.timeZone)")
                    print("API key (\(key.record.role.rawValue), shown once): \(key.bearer)")
                }
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a merchant's settings.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name.")
        var name: String

        @OptionGroup var settings: SettingOptions

        @Flag(help: "Print the merchant as JSON.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                let merchant = try await runtime.merchants.update(name: name, settings: try settings.settings(), actor: "cli")
                if json { printJSON(MerchantSummary(merchant)) } else { print("updated merchant \(merchant.name)") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List merchants.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                let merchants = try await runtime.store.merchants()
                if json {
                    printJSON(merchants.map(MerchantSummary.init))
                    return
                }
                for merchant in merchants {
                    print("\(merchant.name)\t\(merchant.id)\t\(merchant.status.rawValue)\t\(merchant.gateway.name)\t\(merchant.timeZone)")
                }
            }
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a new API key for a merchant (printed once), list its keys, or revoke one.",
            discussion: """
                --list shows each key's id, role, status (active, revoked, expired, or tampered for a row altered in the \
                database), label, creation, last use (recorded at most once a minute) and expiry. An expired key is refused \
                like a revoked one. Revoking a key already revoked says so, changes nothing and exits 0.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name.")
        var name: String

        @Option(help: "Role of the new key: admin, readonly or runner.")
        var role: APIKeyRole = .admin

        @Option(help: "Revoke the key with this id (key_...) instead of issuing one.")
        var revoke: String?

        @Flag(help: "List the merchant's keys instead of issuing one.")
        var list = false

        @Flag(help: "Print JSON.")
        var json = false

        @Option(help: "A label for the new key (who holds it, what for; 1-100 characters).")
        var label: String?

        @Option(help: "The new key expires after this long: a number of days (90d) or hours (12h).")
        var expiresIn: String?

        @Option(help: "The new key expires at this instant (ISO 8601, e.g. 2027-01-31T00:00:00Z).")
        var expiresAt: String?

        func validate() throws {
            if expiresIn != nil && expiresAt != nil { throw ValidationError("give --expires-in or --expires-at, not both") }
            if revoke != nil || list, label != nil || expiresIn != nil || expiresAt != nil {
                throw ValidationError("--label, --expires-in and --expires-at go with issuing a key")
            }
            if let expiresIn, APIKeyExpiry.duration(expiresIn) == nil {
                throw ValidationError("--expires-in takes a number of days or hours, e.g. 90d or 12h")
            }
            if let expiresAt, Timestamp.parse(expiresAt) == nil {
                throw ValidationError("--expires-at takes an ISO 8601 instant, e.g. 2027-01-31T00:00:00Z")
            }
        }

        func run() async throws {
            try await withRuntime(global) { runtime in
                if let revoke {
                    do {
                        try await runtime.merchants.revokeKey(merchantName: name, keyID: revoke, actor: "cli")
                    } catch let error as MerchantError {
                        guard case .apiKeyAlreadyRevoked = error else { throw error }
                        if json { printJSON(["alreadyRevoked": revoke]) } else { print(error.description) }
                        return
                    }
                    if json { printJSON(["revoked": revoke]) } else { print("revoked \(revoke)") }
                } else if list {
                    try await listKeys(runtime)
                } else {
                    let now = Date()
                    let expiry = expiresAt.flatMap(Timestamp.parse) ?? expiresIn.flatMap(APIKeyExpiry.duration).map { now.addingTimeInterval($0) }
                    let key = try await runtime.merchants.issueKey(
                        merchantName: name, role: role, label: label, expiresAt: expiry, actor: "cli", now: now)
                    if json {
                        printJSON(["merchantId": key.record.merchantID, "apiKey": key.bearer, "keyId": key.record.id])
                    } else {
                        let expiry = key.record.expiresAt.map { ", expires \(Timestamp.string($0))" } ?? ""
                        print("API key \(key.record.id) (\(role.rawValue)\(expiry), shown once): \(key.bearer)")
                    }
                }
            }
        }

        private func listKeys(_ runtime: VaultRuntime) async throws {
            let now = Date()
            // A row altered behind the vault's back (inserted, moved, raised, un-revoked, its expiry
            // changed) is shown as `tampered`: it authenticates nobody.
            let keys = try await runtime.merchants.keys(merchantName: name)
            func status(_ key: (record: APIKeyRecord, intact: Bool)) -> String {
                !key.intact ? "tampered" : key.record.revokedAt != nil ? "revoked" : key.record.isExpired(at: now) ? "expired" : "active"
            }
            if json {
                printJSON(keys.map { key in
                    ListedKey(
                        id: key.record.id, role: key.record.role.rawValue, status: status(key), label: key.record.label,
                        createdAt: Timestamp.string(key.record.createdAt), lastUsedAt: key.record.lastUsedAt.map(Timestamp.string),
                        expiresAt: key.record.expiresAt.map(Timestamp.string), revokedAt: key.record.revokedAt.map(Timestamp.string))
                })
                return
            }
            print(["id", "role", "status", "created", "last used", "expires", "label"].joined(separator: "\t"))
            for key in keys {
                let record = key.record
                print([
                    record.id, record.role.rawValue, status(key), Timestamp.string(record.createdAt),
                    record.lastUsedAt.map(Timestamp.string) ?? "never", record.expiresAt.map(Timestamp.string) ?? "never", record.label ?? "-",
                ].joined(separator: "\t"))
            }
        }
    }

    /// One key of `merchant key --list --json` (optional fields are null when unset).
    struct ListedKey: Encodable {
        var id: String
        var role: String
        var status: String
        var label: String?
        var createdAt: String
        var lastUsedAt: String?
        var expiresAt: String?
        var revokedAt: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(role, forKey: .role)
            try container.encode(status, forKey: .status)
            try container.encode(label, forKey: .label)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(lastUsedAt, forKey: .lastUsedAt)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(revokedAt, forKey: .revokedAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, role, status, label, createdAt, lastUsedAt, expiresAt, revokedAt
        }
    }

    struct WebhookSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "webhook-secret", abstract: "A merchant's webhook signing secret.", subcommands: [Rotate.self])

        struct Rotate: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a new webhook signing secret; the old one keeps signing beside it for the overlap, then is dropped.",
                discussion: """
                    During the overlap every delivery's Vault-Signature carries one v1 entry per secret, so the merchant's \
                    receiver accepts deliveries whether it checks the old secret or the new one; switch it to the new one \
                    within the overlap. Prints the new secret (base64; SENSITIVE: hand it over through a secure channel).
                    """)

            @OptionGroup var global: GlobalOptions

            @Argument(help: "Merchant name or id (mer_...).")
            var merchant: String

            @Option(help: "Hours the old secret keeps signing beside the new one (0 to 720).")
            var overlapHours = 24

            func validate() throws {
                guard (0...720).contains(overlapHours) else { throw ValidationError("--overlap-hours must be 0 to 720") }
            }

            func run() async throws {
                try await withRuntime(global) { runtime in
                    let found = merchant.hasPrefix("mer_")
                        ? try await runtime.store.merchant(id: merchant) : try await runtime.store.merchant(named: merchant)
                    guard let found else { throw MerchantError.notFound(merchant) }
                    let rotated = try await WebhookSecretRotation(store: runtime.store, keyring: runtime.keyring).rotate(
                        merchantID: found.id, overlap: TimeInterval(overlapHours) * 3600, actor: "cli")
                    FileHandle.standardError.write(Data(
                        ("webhook signing secret of \(found.name) rotated (version \(rotated.version)); the previous one also signs until "
                            + "\(Timestamp.string(rotated.previousSignUntil)), then it is dropped. New secret (sensitive; keep it out of logs):\n").utf8))
                    print(Encoding.base64(rotated.secret))
                }
            }
        }
    }

    struct Offboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Off-board a merchant: cancel its open schedules, then destroy its keys so every card it holds becomes unreadable at once. Irreversible.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name.")
        var name: String

        @Flag(help: "Confirm the irreversible destruction.")
        var yes = false

        func validate() throws {
            guard yes else { throw ValidationError("off-boarding destroys the merchant's keys irreversibly; pass --yes to confirm") }
        }

        func run() async throws {
            try await withRuntime(global) { runtime in
                let done = try await runtime.offboard(merchantNamed: name, actor: "cli")
                print("merchant \(name) off-boarded: \(done.cancelled) open schedules cancelled, keys destroyed, API keys revoked")
                if !done.destroyedKeyCopiesDiscarded { print(VaultRuntime.destroyedKeyCopiesHeldBack) }
            }
        }
    }
}

extension APIKeyRole: ExpressibleByArgument {}

/// What the CLI shows of a merchant.
struct MerchantSummary: Encodable {
    var merchantId: String
    var name: String
    var status: String
    var gateway: String
    var gatewayUrl: String?
    var timeZone: String
    var callbackUrl: String?
    var verifyOnRegistration: Bool
    var allowCredit: Bool
    var currency: String

    init(_ merchant: Merchant) {
        merchantId = merchant.id
        name = merchant.name
        status = merchant.status.rawValue
        gateway = merchant.gateway.name
        gatewayUrl = merchant.gateway.url
        timeZone = merchant.timeZone
        callbackUrl = merchant.callbackURL
        verifyOnRegistration = merchant.verifyOnRegistration
        allowCredit = merchant.allowsCredit
        currency = merchant.gateway.currency.code
    }
}

/// Opens the runtime for one command and closes it afterwards.
func withRuntime(_ global: GlobalOptions, _ body: (VaultRuntime) async throws -> Void) async throws {
    let configuration = try global.loadConfiguration()
    VaultLogging.bootstrap(configuration.logging)
    let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.cli"))
    defer { runtime.close() }
    try await body(runtime)
}

/// Prints a value as one line of JSON with sorted keys.
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return }
    print(String(decoding: data, as: UTF8.self))
}
