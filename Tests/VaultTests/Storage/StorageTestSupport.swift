import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Vault
@testable import VaultSQLite

/// A fresh directory under the system temporary directory, removed when the body returns.
func withTemporaryStorageDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("vault-storage-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A database path inside a fresh temporary directory (in a subfolder, so creation of the
/// parent directory is exercised), removed when the body returns.
func withTemporaryDatabasePath<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryStorageDirectory { directory in
        try await body(directory.appendingPathComponent("data/vault.sqlite").path)
    }
}

/// A database over `migrations` in a fresh temporary directory, closed and removed after `body`.
func withTemporaryDatabase<T>(migrations: [Migration], _ body: (SQLiteDatabase) async throws -> T) async throws -> T {
    try await withTemporaryDatabasePath { path in
        let database = try SQLiteDatabase(path: path, migrations: migrations)
        defer { database.close() }
        return try await body(database)
    }
}

/// The schema most storage tests write to.
let ledgerMigrations = [
    Migration(id: 1, name: "create ledger", sql: """
        CREATE TABLE ledger (
            id INTEGER PRIMARY KEY,
            reference TEXT NOT NULL UNIQUE,
            amount INTEGER NOT NULL
        );
        """),
]

/// Holds the writer thread inside a write body until the test opens it, so the test can
/// queue writes behind it and know exactly how they will be batched.
final class WriterGate: Sendable {
    private let opened = DispatchSemaphore(value: 0)
    private let entered = Mutex(false)

    /// Called from the write body: records that the writer is held, then blocks until `open()`.
    func holdWriter() {
        entered.withLock { $0 = true }
        opened.wait()
    }

    /// True once the writer thread is blocked in `holdWriter()`.
    var isHoldingWriter: Bool { entered.withLock { $0 } }

    /// Releases the writer thread.
    func open() {
        opened.signal()
    }
}


extension SQLiteDatabase {
    /// Number of rows in `ledger`.
    func ledgerCount() throws -> Int {
        try readNow { try $0.queryOne("SELECT count(*) AS n FROM ledger")?.int("n") ?? 0 }
    }
}

/// The error `body` throws, as `E`; records an issue when it throws nothing or something else.
///
/// Used instead of `#expect(throws:)` around code that contains closures: Swift 6.3 can give
/// a closure nested in a macro argument the same symbol as a sibling closure outside the
/// macro, and then calls the wrong one.
@discardableResult
func expectThrows<E: Error>(
    _ type: E.Type,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> E? {
    do {
        try body()
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), caught \(Swift.type(of: error))", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected \(E.self), nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

/// `expectThrows` for asynchronous code.
@discardableResult
func expectThrowsAsync<E: Error>(
    _ type: E.Type,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> E? {
    do {
        try await body()
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), caught \(Swift.type(of: error))", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected \(E.self), nothing was thrown", sourceLocation: sourceLocation)
    return nil
}
