import Foundation
import Testing
@testable import VaultAppTestSupport

/// `vault merchant key`: a label and an expiry on issue, a listing an auditor can read, and a
/// second revocation that says so.
@Suite struct MerchantKeyCommandTests {
    /// An instant as the vault prints it (`2026-11-27T04:01:27.138Z`).
    private func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    private func listed(_ vault: VaultProcess) async throws -> [[String: Any]] {
        let list = try await vault.run(["merchant", "key", "acme", "--list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aKeyIssuedWithALabelAndExpiryIsListedWithThemAndRevokingItTwiceSaysSo() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        let issued = try await vault.run(["merchant", "key", "acme", "--role", "readonly", "--label", "nightly export", "--expires-in", "30d", "--json"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let keyID = try #require((try JSONSerialization.jsonObject(with: Data(issued.stdout.utf8)) as? [String: Any])?["keyId"] as? String)

        let entry = try #require(try await listed(vault).first { $0["id"] as? String == keyID })
        #expect(entry["label"] as? String == "nightly export")
        #expect(entry["status"] as? String == "active")
        #expect(entry["role"] as? String == "readonly")
        #expect(entry["lastUsedAt"] is NSNull)
        let expires = try #require((entry["expiresAt"] as? String).flatMap(instant))
        #expect(abs(expires.timeIntervalSinceNow - 30 * 86_400) < 3_600)

        let revoked = try await vault.run(["merchant", "key", "acme", "--revoke", keyID])
        #expect(revoked.status == 0)
        let again = try await vault.run(["merchant", "key", "acme", "--revoke", keyID])
        #expect(again.status == 0)
        #expect(again.stdout.contains("was already revoked at"))
        #expect(again.stdout.contains("nothing changed"))
        #expect(try await listed(vault).first { $0["id"] as? String == keyID }?["status"] as? String == "revoked")
        let unknown = try await vault.run(["merchant", "key", "acme", "--revoke", "key_AAAAAAAAAAAAAAAA"])
        #expect(unknown.status == 1)
    }

    @Test func aBadExpiryOrLabelIsRefusedAndIssuesNothing() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        for arguments in [["--expires-in", "0d"], ["--expires-in", "soon"], ["--expires-at", "tomorrow"], ["--expires-in", "1d", "--expires-at", "2030-01-01T00:00:00Z"]] {
            #expect(try await vault.run(["merchant", "key", "acme"] + arguments).status == 2, "\(arguments)")
        }
        #expect(try await vault.run(["merchant", "key", "acme", "--expires-at", "2001-01-01T00:00:00Z"]).status == 1)
        #expect(try await vault.run(["merchant", "key", "acme", "--label", "card 4242424242424242"]).status == 1)
        #expect(try await listed(vault).count == 1)
    }
}
