import Foundation
public import Testing

/// The storage engine the suite runs on: SQLite unless `VAULT_TEST_ENGINE=postgres`.
///
/// `make test` runs the whole suite twice: once on SQLite, then again with
/// `VAULT_TEST_ENGINE=postgres`, where every store fixture (`TestDatabase`, the API fixture's
/// runtime) opens a fresh PostgreSQL database copied from a migrated template.
public enum TestEngine: String, Sendable {
    case sqlite
    case postgres

    /// The engine of this test process.
    public static let current: TestEngine =
        ProcessInfo.processInfo.environment["VAULT_TEST_ENGINE"] == "postgres" ? .postgres : .sqlite
}

extension Trait where Self == ConditionTrait {
    /// A test of something only the SQLite engine has (its files, its triggers, its single writer):
    /// it runs in the SQLite pass only. `reason` says what, and where the PostgreSQL counterpart is
    /// tested when there is one.
    public static func sqliteOnly(_ reason: Comment) -> Self {
        .enabled(if: TestEngine.current == .sqlite, reason)
    }
}
