import Foundation
import Logging
import Scheduler
import Vault
import VaultApp
import VaultSQLite

/// A fresh vault for one workload run, opened the way `vault serve` opens it (``VaultRuntime``
/// over a SQLite file), in a temporary directory of its own, with one merchant and its admin key.
///
/// Its inputs are fixed (the master key, the merchant's name and settings), so two runs do the
/// same work; the key protects nothing but this throwaway database.
struct BudgetVault: Sendable {
    let directory: URL
    let runtime: VaultRuntime
    let merchant: Merchant
    /// The merchant's admin API key as a bearer token (for `http-register`).
    let bearer: String

    /// A logger that writes nothing (``SilentLogHandler``).
    static let quiet = Logger(label: "instruction-budget", factory: { _ in SilentLogHandler() })

    /// Opens (creating and migrating) a vault in a new temporary directory and creates its merchant.
    static func open() async throws -> BudgetVault {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("instruction-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            var configuration = VaultConfiguration()
            configuration.database.path = directory.appendingPathComponent("vault.sqlite").path
            configuration.keys.directory = directory.appendingPathComponent("keys").path
            configuration.keys.masterKeyFromEnvironment = Data(repeating: 0x5A, count: 32).base64EncodedString()
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: quiet, database: .createIfMissing)
            do {
                guard await runtime.store.discardSupersededRowVersions() else { throw BudgetFailure("the write-ahead log could not be emptied") }
                let (merchant, key) = try await runtime.merchants.create(
                    name: "budget", role: .admin, settings: .init(verifyOnRegistration: false), actor: "instruction-budget")
                return BudgetVault(directory: directory, runtime: runtime, merchant: merchant, bearer: key.bearer)
            } catch {
                runtime.close()
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Writes between two ``emptyWriteAheadLog()`` calls: about 20 log pages each (a registration),
    /// so the log stays well under the pages past which the background checkpoint starts
    /// (`SQLiteCheckpointer.backgroundFrames`).
    static let operationsPerCheckpoint = 20

    /// Copies the write-ahead log into the database file and empties it, waiting until done (a
    /// `TRUNCATE` checkpoint, while nothing else runs), so the checkpoint copies the same pages in
    /// every run. The background checkpoint, started past a number of log pages, copies as many as
    /// were written by the time its thread got to run.
    func emptyWriteAheadLog() async throws {
        guard await runtime.store.discardSupersededRowVersions() else {
            throw BudgetFailure("the write-ahead log could not be emptied before the operations")
        }
    }

    /// Commits the read audit events queued by retrievals now. The store queues them for the next
    /// write batch, started at the latest 5 ms later; left to that timer, how many retrievals share
    /// a batch would depend on how fast the machine (and Valgrind) runs.
    func commitQueuedAuditEvents() async throws {
        guard let store = runtime.store as? SQLiteStore else { throw BudgetFailure("the workload runs on SQLite only") }
        try await store.database.write { _ in }
    }

    /// Closes the database and removes the directory.
    func remove() {
        runtime.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The workload could not do what it was asked: its count would be meaningless.
struct BudgetFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
