import ArgumentParser
import Foundation
import Payments
import Vault

extension MerchantCommand {
    /// `vault merchant show NAME`: one merchant's settings as the on-call needs them, with which
    /// gateway credentials are set and which are missing, never their values.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a merchant: gateway, URL, which credentials are set (never their values), callback, zone, currency.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Merchant name.")
        var name: String

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                guard let merchant = try await runtime.store.merchant(named: name) else { throw MerchantError.notFound(name) }
                // Opened to learn the names only; the values never leave this scope.
                let setNames = try await runtime.merchants.gatewayCredentials(merchantID: merchant.id).keys.sorted()
                let needed = GatewayCatalogue.entry(named: merchant.gateway.name)?.credentialNames ?? []
                let shown = MerchantDetails(
                    summary: MerchantSummary(merchant), credentialsSet: setNames,
                    credentialsMissing: needed.filter { !setNames.contains($0) }, createdAt: Timestamp.string(merchant.createdAt),
                    updatedAt: Timestamp.string(merchant.updatedAt))
                if json {
                    printJSON(shown)
                    return
                }
                let summary = shown.summary
                let lines: [(String, String)] = [
                    ("merchant", "\(summary.name) (\(summary.merchantId)), \(summary.status)"),
                    ("gateway", summary.gateway + (summary.gatewayUrl.map { " at \($0)" } ?? " at its default URL")),
                    ("credentials set", setNames.isEmpty ? "none" : setNames.joined(separator: ", ")),
                    ("credentials missing", shown.credentialsMissing.isEmpty ? "none" : shown.credentialsMissing.joined(separator: ", ")),
                    ("currency", summary.currency),
                    ("time zone", summary.timeZone),
                    ("callback URL", summary.callbackUrl ?? "none"),
                    ("verify on registration", "\(summary.verifyOnRegistration)"),
                    ("credits allowed", "\(summary.allowCredit)"),
                    ("created", shown.createdAt),
                    ("updated", shown.updatedAt),
                ]
                for (label, value) in lines { print((label + ":").padding(toLength: 24, withPad: " ", startingAt: 0) + value) }
            }
        }
    }

    /// `merchant show --json`: the listing's fields, with the credential names set and missing.
    struct MerchantDetails: Encodable {
        var summary: MerchantSummary
        var credentialsSet: [String]
        var credentialsMissing: [String]
        var createdAt: String
        var updatedAt: String

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(credentialsSet, forKey: .credentialsSet)
            try container.encode(credentialsMissing, forKey: .credentialsMissing)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(updatedAt, forKey: .updatedAt)
        }

        enum CodingKeys: String, CodingKey {
            case credentialsSet, credentialsMissing, createdAt, updatedAt
        }
    }
}
