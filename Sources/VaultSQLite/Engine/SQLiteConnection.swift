internal import CSQLite

/// One SQLite connection with its statement cache.
///
/// Not `Sendable`: a connection is used by one thread at a time. `SQLiteDatabase` hands
/// its writer connection to `write` bodies on the writer thread, and reader connections
/// to `read` bodies, one body at a time.
public final class SQLiteConnection {
    /// Whether a connection may create and write the database file.
    enum Role {
        /// The single writer: creates the file, sets WAL mode.
        case writer
        /// A reader: opened without `SQLITE_OPEN_CREATE`, then `PRAGMA query_only`.
        case reader
        /// The background checkpointer's: copies the WAL into the database file, nothing else.
        case checkpointer
        /// A backup's (`VACUUM INTO`): reads the live database in one snapshot, writes only the copy.
        case backup
        /// Reads a file nothing else uses (a backup before restore): opened read-only and immutable,
        /// never switched to WAL, so inspecting it changes not a byte and creates no `-wal`/`-shm`.
        case inspector
    }

    /// The `sqlite3` handle; `nil` once closed.
    private(set) var handle: OpaquePointer?
    /// The database file path.
    let path: String
    /// Prepared statements keyed by SQL text.
    private var statementCache: [SQLText: Statement] = [:]
    /// Observers of the open write transaction (`observeTransaction`), dropped at its end.
    var transactionObservers: [any SQLiteTransactionObserver] = []
    /// Values kept with this connection by code above the engine (`attachment`).
    var attachments: [ObjectIdentifier: AnyObject] = [:]
    /// Values shared by every connection of one database (`SQLiteDatabase.shared`).
    var shared = SQLiteSharedValues()

    /// Opens and configures a connection: WAL, `synchronous=FULL`, foreign keys,
    /// secure delete, busy timeout, defensive mode, and `query_only` for readers.
    ///
    /// - Throws: `SQLiteError` if the file cannot be opened or WAL mode cannot be set.
    init(path: String, role: Role, busyTimeoutMilliseconds: Int32) throws {
        _ = Self.processSettings
        self.path = path
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if role == .writer {
            flags |= SQLITE_OPEN_CREATE
        }
        var name = path
        if role == .inspector {
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
            name = Self.immutableURI(path)
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = handle.map { SQLiteError.last(on: $0, code: code, sql: nil) }
                ?? SQLiteError(extendedCode: code, message: String(cString: sqlite3_errstr(code)))
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        try configure(role: role, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    deinit {
        close()
    }

    /// `file:<path>?immutable=1`, the path percent-encoded where a URI needs it.
    private static func immutableURI(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                encoded.append(Character(UnicodeScalar(byte)))
            default:
                encoded += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return "file:\(encoded)?immutable=1"
    }

    /// SQLite's process-wide settings, applied once before the first connection opens: no memory
    /// statistics, whose global mutex every allocation and free of every connection would take.
    private static let processSettings: Void = {
        _ = csqlite_disable_memory_statistics()
    }()

    /// Finalizes every cached statement and closes the connection. Idempotent.
    func close() {
        statementCache.removeAll()
        attachments.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// Runs one or more `;`-separated statements without arguments, discarding any rows.
    ///
    /// For schema scripts and pragmas; statements are not cached.
    /// - Throws: `SQLiteError` for the first failing statement, carrying that statement's SQL.
    public func execute(_ sql: String) throws {
        let handle = try openHandle(sql: sql)
        try sql.withCString { script in
            var cursor: UnsafePointer<CChar>? = script
            while let current = cursor, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(handle, current, -1, 0, &statement, &tail)
                guard code == SQLITE_OK else {
                    throw SQLiteError.last(on: handle, code: code, sql: Self.text(from: current, to: tail) ?? sql)
                }
                cursor = tail
                guard let statement else { continue }
                defer { sqlite3_finalize(statement) }
                var stepCode: Int32
                repeat {
                    stepCode = sqlite3_step(statement)
                } while stepCode == SQLITE_ROW
                guard stepCode == SQLITE_DONE else {
                    let failing = sqlite3_sql(statement).map { String(cString: $0) } ?? sql
                    throw SQLiteError.last(on: handle, code: stepCode, sql: failing)
                }
            }
        }
    }

    /// Runs one statement, its interpolated values bound to their `?`, stepping it to completion.
    ///
    /// The prepared statement is cached by SQL text (`SQLITE_PREPARE_PERSISTENT`).
    /// - Throws: `SQLiteError`; the error carries the SQL, never the arguments.
    public func run(_ query: SQLiteQuery) throws {
        try withStatement(query) { statement in
            while try statement.step() {}
        }
    }

    /// Runs one query and returns all its rows.
    ///
    /// - Throws: `SQLiteError`; the error carries the SQL, never the arguments.
    public func query(_ query: SQLiteQuery) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try forEachRow(query) { rows.append($0) }
        return rows
    }

    /// Runs one query and returns its first row, or `nil` when it has none.
    ///
    /// - Throws: `SQLiteError`; the error carries the SQL, never the arguments.
    public func queryOne(_ query: SQLiteQuery) throws -> SQLiteRow? {
        try withStatement(query) { statement in
            guard try statement.step() else { return nil }
            return SQLiteRow(columnNames: statement.columnNames(), values: statement.rowValues())
        }
    }

    /// Runs one query and calls `body` for each row as it is stepped, without collecting an array.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws (which stops the iteration).
    public func forEachRow(_ query: SQLiteQuery, _ body: (SQLiteRow) throws -> Void) throws {
        try withStatement(query) { statement in
            var columnNames: [String]?
            while try statement.step() {
                let names = columnNames ?? statement.columnNames()
                columnNames = names
                try body(SQLiteRow(columnNames: names, values: statement.rowValues()))
            }
        }
    }

    /// Rows changed by the most recent `INSERT`, `UPDATE` or `DELETE` (`sqlite3_changes`).
    public var changes: Int {
        handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// The rowid of the most recent successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// True while a transaction is open (the connection is not in autocommit mode).
    public var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Binds, runs `body` on the cached statement for `sql`, then resets it and clears its bindings.
    private func withStatement<T>(_ query: SQLiteQuery, _ body: (Statement) throws -> T) throws -> T {
        let statement = try statement(for: query.text)
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
        }
        try statement.bind(query.arguments)
        return try body(statement)
    }

    /// The cached statement for `text`, or a fresh uncached one when the cached one is being stepped.
    private func statement(for text: SQLText) throws -> Statement {
        guard let handle else {
            throw SQLiteError.misuse("the database connection is closed", sql: text.string)
        }
        if let cached = statementCache[text] {
            if !cached.isInUse {
                return cached
            }
            return try Statement(connection: handle, sql: text.string, persistent: false)
        }
        let statement = try Statement(connection: handle, sql: text.string, persistent: true)
        statementCache[text] = statement
        return statement
    }

    private func openHandle(sql: String?) throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError.misuse("the database connection is closed", sql: sql)
        }
        return handle
    }

    private static func text(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>?) -> String? {
        guard let end, end > start else { return nil }
        let bytes = UnsafeRawBufferPointer(start: start, count: end - start)
        return String(decoding: bytes, as: UTF8.self)
    }
}
