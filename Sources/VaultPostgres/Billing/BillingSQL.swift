import Foundation
import Logging
import PostgresNIO
import Vault

/// Where the billing stores run statements: a write transaction (`PostgresWrite`) or a read
/// snapshot (`BillingReader`), rows read by column name as the SQLite stores read theirs.
protocol BillingSQL {
    /// Runs `query` and collects its rows.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRowReader]
}

extension BillingSQL {
    /// The first row, if any.
    func row(_ query: PostgresQuery) async throws -> PostgresRowReader? {
        try await rows(query).first
    }

    /// Runs a statement; with `RETURNING`, the number of rows it changed.
    @discardableResult
    func run(_ query: PostgresQuery) async throws -> Int {
        try await rows(query).count
    }
}

extension PostgresWrite: BillingSQL {}

/// A read snapshot's connection (`PostgresStore.read`).
struct BillingReader: BillingSQL {
    let connection: PostgresConnection
    let logger: Logger

    func rows(_ query: PostgresQuery) async throws -> [PostgresRowReader] {
        try await connection.rows(query, logger: logger)
    }
}

extension PostgresStore {
    /// `read`, with the connection as a `BillingSQL`.
    func billingRead<T>(_ body: (BillingReader) async throws -> sending T) async throws -> sending T {
        try await read { connection in try await body(BillingReader(connection: connection, logger: logger)) }
    }
}

extension Timestamp {
    /// `string(date)`, for an optional instant.
    static func optional(_ date: Date?) -> String? {
        date.map(string)
    }
}
