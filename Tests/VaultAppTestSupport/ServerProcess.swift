import Foundation
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp

/// Starting `vault serve` subprocesses in tests.
enum ServerProcess {
    /// Waits until the server prints its port on standard output (nil if it exits first or takes
    /// over 60 s).
    static func waitForPort(_ process: Subprocess) async throws -> Int? {
        await process.standardOutput.wait(until: Date().addingTimeInterval(60)) { printed in
            printed.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression).flatMap {
                Int(printed[$0].split(separator: ":").last ?? "")
            }
        }
    }
}
