internal import CSQLite
internal import CSodium

/// One prepared SQL statement, finalized when released.
///
/// Statements belong to one `SQLiteConnection` and share its thread confinement.
/// Cached statements are prepared with `SQLITE_PREPARE_PERSISTENT`; after every use they
/// are reset and their bindings cleared, so no card data lingers in a cached statement.
final class Statement {
    /// The `sqlite3_stmt` handle.
    let handle: OpaquePointer
    /// The SQL text, as reported in errors (never expanded with arguments).
    let sql: String
    /// Set while the statement is being stepped, so a re-entrant use of the same SQL
    /// (from inside a `forEachRow` body) gets its own statement instead of resetting this one.
    var isInUse = false
    /// The bytes of the bound text and blobs of the current execution, copied here at once and
    /// bound without SQLite copying each into an allocation of its own (`SQLITE_STATIC`): valid
    /// until `reset`, which zeroes them, so no bound value lingers. Kept between executions.
    private var arena: UnsafeMutableRawPointer?
    private var arenaCapacity = 0
    private var arenaUsed = 0

    /// Prepares exactly one statement from `sql`.
    ///
    /// - Throws: `SQLiteError` if SQLite rejects the SQL, if it is empty, or if it holds
    ///   more than one statement.
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        var hasTrailingStatement = false
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection, text, -1, flags, &statement, &tail)
            if code == SQLITE_OK, let tail, tail.pointee != 0 {
                hasTrailingStatement = Self.holdsStatement(tail, connection: connection)
            }
            return code
        }
        guard code == SQLITE_OK else {
            throw SQLiteError.last(on: connection, code: code, sql: sql)
        }
        guard let statement else {
            throw SQLiteError.misuse("no SQL statement to prepare", sql: sql)
        }
        guard !hasTrailingStatement else {
            sqlite3_finalize(statement)
            throw SQLiteError.misuse("expected one SQL statement; use execute(_:) for scripts", sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
        if let arena {
            sodium_memzero(arena, arenaCapacity)
            arena.deallocate()
        }
    }

    /// Binds `arguments` to the `?` parameters, in order.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_RANGE`) when the count does not match the parameters.
    func bind(_ arguments: [SQLiteValue]) throws {
        let parameterCount = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == parameterCount else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE,
                message: "statement expects \(parameterCount) arguments, got \(arguments.count)",
                sql: sql
            )
        }
        guard !arguments.isEmpty else {
            clearArena()
            return
        }
        // Index loops, not `enumerated()`: this runs for every statement of every write, and the
        // generic iterators cost more than the binding itself in the unoptimized build.
        var needed = 1
        var offset = 0
        while offset < arguments.count {
            switch arguments[offset] {
            case .text(let text): needed += text.utf8.count
            case .blob(let bytes): needed += bytes.count
            default: break
            }
            offset += 1
        }
        reserveArena(needed)
        offset = 0
        while offset < arguments.count {
            try bind(arguments[offset], at: Int32(offset + 1))
            offset += 1
        }
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let value):
            code = sqlite3_bind_int64(handle, index, value)
        case .real(let value):
            code = sqlite3_bind_double(handle, index, value)
        case .text(var value):
            let count = Int32(clamping: value.utf8.count)
            let bytes = value.withUTF8 { copyIntoArena(UnsafeRawBufferPointer($0)) }
            code = sqlite3_bind_text(handle, index, bytes.assumingMemoryBound(to: CChar.self), count, nil)
        case .blob(let value):
            // A nil pointer would bind NULL, so the empty blob needs its own call.
            code = value.isEmpty
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob(handle, index, value.withUnsafeBytes { copyIntoArena($0) }, Int32(clamping: value.count), nil)
        }
        guard code == SQLITE_OK else {
            throw SQLiteError.last(on: sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }

    /// Makes room in the arena for `needed` bytes of text and blobs, before any is bound (growing
    /// it later would move bytes already bound).
    private func reserveArena(_ needed: Int) {
        clearArena()
        guard needed > arenaCapacity else { return }
        arena?.deallocate()
        arenaCapacity = max(needed, 2 * arenaCapacity, 256)
        arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 8)
    }

    /// Copies `bytes` into the arena (reserved by `reserveArena`) and returns where.
    private func copyIntoArena(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer {
        guard let arena, arenaUsed + bytes.count <= arenaCapacity else {
            preconditionFailure("the arena is reserved for every argument before binding")
        }
        let start = arena + arenaUsed
        if let base = bytes.baseAddress, bytes.count > 0 {
            start.copyMemory(from: base, byteCount: bytes.count)
        }
        arenaUsed += bytes.count
        return start
    }

    /// Advances the statement: `true` when a row is ready, `false` when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.last(on: sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }

    /// Resets the statement, clears its bindings and zeroes the bound bytes, ready for the next use.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        clearArena()
    }

    private func clearArena() {
        if let arena, arenaUsed > 0 {
            sodium_memzero(arena, arenaUsed)
        }
        arenaUsed = 0
    }

    /// The result column names of the current execution.
    func columnNames() -> [String] {
        (0..<sqlite3_column_count(handle)).map { column in
            sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
        }
    }

    /// The values of the current row, in column order.
    func rowValues() -> [SQLiteValue] {
        (0..<sqlite3_column_count(handle)).map(value(at:))
    }

    private func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// Whether the text after the first statement holds another one (not just blanks and comments).
    private static func holdsStatement(_ text: UnsafePointer<CChar>, connection: OpaquePointer) -> Bool {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, text, -1, 0, &statement, nil)
        sqlite3_finalize(statement)
        return code != SQLITE_OK || statement != nil
    }
}
