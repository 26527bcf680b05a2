import Foundation
import Testing
@testable import VaultAppTestSupport

/// `scripts/restore-drill.sh` run against the built `vault`, so the operator's drill cannot rot:
/// a backup under write load, a rotation, a refused restore with a wrong key, a restore where
/// every card opens and the audit chain verifies.
@Suite struct RestoreDrillTests {
    @Test func theRestoreDrillPassesAgainstTheBuiltVault() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("VAULT_") { environment[key] = nil }
        environment["VAULT_BIN"] = VaultProcess.executable.path
        environment["DRILL_CARDS"] = "30"
        let drill = try Subprocess(
            executable: "/bin/bash", arguments: [root.appendingPathComponent("scripts/restore-drill.sh").path], environment: environment)
        let outcome = await drill.finish()
        #expect(outcome.status == 0, "\(outcome.standardError.suffix(2000))")
        #expect(outcome.standardOutput.contains("PASS"))
    }
}
