import Foundation
import Testing
import Vault
@testable import VaultAppTestSupport

/// At the command line: `vault merchant create|update` refuses
/// gateway and callback URLs that are not https (loopback hosts aside), disguised numeric hosts
/// and, unless `webhooks.allowPrivateTargets` is on, private callback targets: exit 1, a message
/// naming the setting, nothing changed.
@Suite struct MerchantEndpointCommandTests {
    static func merchantList(_ vault: VaultProcess) async throws -> [[String: Any]] {
        let listed = try await vault.run(["merchant", "list", "--json"])
        return (try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? []
    }

    @Test func plainHTTPGatewayURLsAreRefusedExceptOnLoopback() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let credentials = ["--gateway", "nmi", "--gateway-credential", "security_key=NMI-SECRET-KEY-9"]
        let refused = try await vault.run(["merchant", "create", "acme", "--gateway-url", "http://example.com"] + credentials)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("gateway-url"))
        #expect(refused.stderr.contains("https"))
        #expect(!refused.stderr.contains("NMI-SECRET-KEY-9"))
        #expect(try await Self.merchantList(vault).isEmpty)

        let accepted = try await vault.run(["merchant", "create", "acme", "--gateway-url", "http://127.0.0.1:1234"] + credentials)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        for url in ["http://example.com/api", "http://0x7f000001/", "http://127.1:1234/", "https://2130706433/"] {
            let update = try await vault.run(["merchant", "update", "acme", "--gateway-url", url])
            #expect(update.status == 1, "\(url)")
            #expect(update.stderr.contains("gateway-url"))
        }
        #expect(try await Self.merchantList(vault).first?["gatewayUrl"] as? String == "http://127.0.0.1:1234")
        #expect(try await vault.run(["merchant", "update", "acme", "--gateway-url", "https://secure.nmi.com"]).status == 0)
    }

    @Test func callbackURLsMustBeHTTPSAndPublicUnlessTheOperatorAllowsPrivateTargets() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        for url in ["http://example.com/hooks", "http://127.0.0.1:1234/hooks", "http://0x7f000001/", "http://2130706433/", "http://127.1/",
                    "http://[::ffff:127.0.0.1]/", "https://169.254.169.254/", "https://10.0.0.5/hooks", "https://[fe80::1]/"] {
            let refused = try await vault.run(["merchant", "create", "acme", "--callback-url", url])
            #expect(refused.status == 1, "\(url)")
            #expect(refused.stderr.contains("callback-url"), "\(url)")
        }
        #expect(try await Self.merchantList(vault).isEmpty)
        let publicHook = try await vault.run(["merchant", "create", "acme", "--callback-url", "https://hooks.example.com/vault"])
        #expect(publicHook.status == 0, "\(publicHook.stderr)")
        let privateHook = try await vault.run(["merchant", "update", "acme", "--callback-url", "http://127.0.0.1:1234/hooks"])
        #expect(privateHook.status == 1)
        #expect(privateHook.stderr.contains("webhooks.allowPrivateTargets"))

        try vault.allowPrivateCallbackTargets()
        #expect(try await vault.run(["merchant", "update", "acme", "--callback-url", "http://127.0.0.1:1234/hooks"]).status == 0)
        #expect(try await Self.merchantList(vault).first?["callbackUrl"] as? String == "http://127.0.0.1:1234/hooks")
        for url in ["http://0x7f000001/", "http://2130706433/", "http://127.1/", "http://example.com/hooks", "https://0.0.0.0/"] {
            #expect(try await vault.run(["merchant", "update", "acme", "--callback-url", url]).status == 1, "\(url) with private targets allowed")
        }
        #expect(try await Self.merchantList(vault).first?["callbackUrl"] as? String == "http://127.0.0.1:1234/hooks")
    }
}
