import Foundation
import Testing
@testable import VaultAppTestSupport

/// `vault merchant webhook-secret rotate`: prints a new secret, which `vault webhooks secret` then
/// shows; a bad overlap or an unknown merchant is refused and changes nothing.
@Suite struct WebhookSecretCommandTests {
    @Test func aRotationPrintsTheNewSecretAndABadOverlapOrMerchantChangesNothing() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        let before = try await vault.run(["webhooks", "secret", "acme"])
        #expect(before.status == 0)

        for arguments in [["--overlap-hours", "721"], ["--overlap-hours", "-1"], ["--overlap-hours", "soon"]] {
            #expect(try await vault.run(["merchant", "webhook-secret", "rotate", "acme"] + arguments).status == 2, "\(arguments)")
        }
        #expect(try await vault.run(["merchant", "webhook-secret", "rotate", "nobody"]).status == 1)
        #expect(try await vault.run(["webhooks", "secret", "acme"]).stdout == before.stdout, "refused rotations change nothing")

        let rotated = try await vault.run(["merchant", "webhook-secret", "rotate", "acme", "--overlap-hours", "2"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stderr.contains("the previous one also signs until"))
        let secret = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: secret)?.count == 32)
        #expect(secret != before.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try await vault.run(["webhooks", "secret", "acme"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == secret)
    }
}
