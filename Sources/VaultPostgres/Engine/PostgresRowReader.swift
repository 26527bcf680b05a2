import Foundation
public import NIOCore
public import PostgresNIO

/// Reads a result row by column name, as `SQLiteRow` does, so the stores' row mappers look alike.
public struct PostgresRowReader {
    let row: PostgresRandomAccessRow

    /// Wraps `row`.
    public init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    /// Whether the row has `column`.
    public func has(_ column: String) -> Bool { row.contains(column) }

    public func string(_ column: String) throws -> String { try row[column].decode(String.self) }
    public func optionalString(_ column: String) throws -> String? { try row[column].decode(String?.self) }
    public func int64(_ column: String) throws -> Int64 { try row[column].decode(Int64.self) }
    public func optionalInt64(_ column: String) throws -> Int64? { try row[column].decode(Int64?.self) }
    public func int(_ column: String) throws -> Int { try row[column].decode(Int.self) }
    public func optionalInt(_ column: String) throws -> Int? { try row[column].decode(Int?.self) }
    public func bool(_ column: String) throws -> Bool { try row[column].decode(Bool.self) }
    public func blob(_ column: String) throws -> [UInt8] {
        Array(try row[column].decode(ByteBuffer.self).readableBytesView)
    }
    public func optionalBlob(_ column: String) throws -> [UInt8]? {
        try row[column].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}

/// A `bytea` parameter: `[UInt8]` alone would bind as PostgreSQL's `"char"[]`.
@inlinable
public func bytea(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

/// An optional `bytea` parameter.
@inlinable
public func bytea(_ bytes: [UInt8]?) -> ByteBuffer? { bytes.map { ByteBuffer(bytes: $0) } }

extension PostgresConnection {
    /// `query(_:logger:)`, failing at once on a connection the server has closed.
    ///
    /// postgres-nio 1.33.2 writes a query to its channel without a promise: on a closed channel the
    /// write fails unseen and the query's own promise is never completed, so the call waits forever
    /// (seen after `pg_terminate_backend` and after a SIGKILLed primary). Every unnamed statement
    /// of the engine goes through here (a prepared one through `preparedRows`, which checks alike).
    /// A close racing this check by microseconds is still possible.
    public func checkedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else { throw PostgresStoreError.connectionClosed }
        PostgresStatementCounter.current?.record(query.sql)
        return try await self.query(query, logger: logger)
    }

    /// Runs `query` and collects its rows (the stores' result sets are bounded by their LIMITs).
    public func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRowReader] {
        do {
            return try await checkedQuery(query, logger: logger).collect().map(PostgresRowReader.init)
        } catch {
            throw PostgresStoreError.mapping(error) ?? error
        }
    }

    /// The first row of `query`, or nil.
    public func row(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowReader? {
        try await rows(query, logger: logger).first
    }

    /// Runs `query` for its effect and returns the number of rows it returned: postgres-nio's async API
    /// does not expose the command tag, so a statement whose changed rows count ends in `RETURNING 1`.
    @discardableResult
    public func run(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        do {
            let sequence = try await checkedQuery(query, logger: logger)
            var count = 0
            for try await _ in sequence { count += 1 }
            return count
        } catch {
            throw PostgresStoreError.mapping(error) ?? error
        }
    }
}
