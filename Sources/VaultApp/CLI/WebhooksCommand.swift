public import ArgumentParser
import Foundation
import Scheduler
public import Vault

/// `vault webhooks deliver|secret|list`.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Webhook events: deliver what is due, show a merchant's signing secret, list events.",
        subcommands: [Deliver.self, Secret.self, List.self])

    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deliver every due webhook event once, then exit (1 if any attempt failed; failed events retry later).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object {\"delivered\", \"failed\", \"expired\"}.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                let report = try await runtime.webhooks.deliverDue()
                if json {
                    printJSON(report)
                } else {
                    print("webhooks: \(report.delivered) delivered, \(report.failed) failed, \(report.expired) expired")
                }
                if report.failed > 0 { throw ExitCode.failure }
            }
        }
    }

    struct Secret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a merchant's webhook signing secret (base64) for its receiver to verify Vault-Signature.",
            discussion: """
                SENSITIVE: anyone holding this secret can forge webhook deliveries to the merchant. Hand it over \
                through a secure channel and do not paste it into tickets, chats or logs.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name or id (mer_...).")
        var merchant: String

        func run() async throws {
            try await withRuntime(global) { runtime in
                let found = merchant.hasPrefix("mer_")
                    ? try await runtime.store.merchant(id: merchant) : try await runtime.store.merchant(named: merchant)
                guard let found else { throw MerchantError.notFound(merchant) }
                let key = try await runtime.keyring.key(merchantID: found.id, purpose: .webhook).key
                FileHandle.standardError.write(Data("webhook signing secret of \(found.name) (sensitive; keep it out of logs):\n".utf8))
                print(Encoding.base64(key))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List webhook events, newest first (never their bodies).")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only this merchant (name or id).")
        var merchant: String?

        @Option(help: "Only events in this status: pending, delivered or expired.")
        var status: WebhookEventStatus?

        @Option(help: "How many events.")
        var limit = 20

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                var merchantID: String?
                if let merchant {
                    let found = merchant.hasPrefix("mer_")
                        ? try await runtime.store.merchant(id: merchant) : try await runtime.store.merchant(named: merchant)
                    guard let found else { throw MerchantError.notFound(merchant) }
                    merchantID = found.id
                }
                let events = try await runtime.store.webhookEvents(merchantID: merchantID, status: status, beforeSequence: nil, limit: limit)
                if json {
                    printJSON(events.map(WebhookEventSummary.init))
                    return
                }
                for event in events {
                    print([event.id, event.type, event.merchantID, event.status.rawValue, String(event.attempts), event.lastError ?? "-"]
                        .joined(separator: "\t"))
                }
            }
        }
    }
}

extension WebhookEventStatus: ExpressibleByArgument {}

/// What the CLI shows of an event.
struct WebhookEventSummary: Encodable {
    var id: String
    var type: String
    var merchantId: String
    var status: String
    var attempts: Int
    var lastError: String?
    var createdAt: String
    var nextAttemptAt: String
    var deliveredAt: String?

    init(_ event: WebhookEvent) {
        id = event.id
        type = event.type
        merchantId = event.merchantID
        status = event.status.rawValue
        attempts = event.attempts
        lastError = event.lastError
        createdAt = Timestamp.string(event.createdAt)
        nextAttemptAt = Timestamp.string(event.nextAttemptAt)
        deliveredAt = event.deliveredAt.map(Timestamp.string)
    }
}
