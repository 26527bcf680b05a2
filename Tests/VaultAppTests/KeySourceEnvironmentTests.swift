import Foundation
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// The master key, the passphrase and the database URL leave the process environment once read:
/// child processes do not inherit them and `/proc/<pid>/environ` (or a core dump) no longer shows them.
@Suite struct KeySourceEnvironmentTests {
    // Tested on a child process only: changing this test process's environment (setenv/unsetenv)
    // would race with the tests that read it concurrently to spawn subprocesses.
    @Test func aRunningServerNoLongerShowsTheKeyInItsEnvironmentBlock() async throws {
        let vault = try await VaultProcess.onTestEngine()
        let key = Encoding.base64(RandomBytes.make(32))
        let process = try vault.start(["serve"], environment: ["VAULT_MASTER_KEY": key, "VAULT_PORT": "0"])
        defer {
            process.terminateAndReap()
        }
        _ = try #require(try await ServerProcess.waitForPort(process))
        // The initial environment block, as another process of the same user (or a core dump) sees it.
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.pid)/environ"))
        #expect(!environ.isEmpty)
        #expect(environ.range(of: Data(key.utf8)) == nil)
        #expect(environ.range(of: Data("VAULT_PORT=0".utf8)) != nil)
        if let postgres = vault.postgres {
            // The database URL (which may carry its password) leaves the environment too.
            #expect(environ.range(of: Data(postgres.urlText.utf8)) == nil)
        }
    }
}
