internal import CSQLite

extension SQLiteConnection {
    /// Applies the settings every connection needs: WAL, `synchronous=FULL`,
    /// foreign keys, secure delete, busy timeout and defensive mode; readers are also `query_only`.
    ///
    /// - Throws: `SQLiteError` if a setting fails or the journal mode is not `wal` afterwards.
    func configure(role: Role, busyTimeoutMilliseconds: Int32) throws {
        guard let handle else {
            throw SQLiteError.misuse("the database connection is closed")
        }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        let defensive = csqlite_enable_defensive(handle)
        guard defensive == SQLITE_OK else {
            throw SQLiteError.last(on: handle, code: defensive, sql: nil)
        }
        if role == .inspector {
            try execute("PRAGMA query_only=ON")
            return
        }
        let journalModeSQL = "PRAGMA journal_mode=WAL"
        guard case .text(let mode) = try singleValue(journalModeSQL), mode.lowercased() == "wal" else {
            throw SQLiteError(
                extendedCode: SQLITE_ERROR,
                message: "could not enable WAL mode; WAL needs a database file on a local disk (not :memory:)",
                sql: journalModeSQL
            )
        }
        try execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON")
        // Page caches larger than SQLite's 2 MiB default: the runner's and the API's working set
        // (B-tree pages of steps, transactions and their indexes) otherwise goes back to the
        // kernel with a pread for more of its statements. No memory map: mapped pages count in
        // the process's RSS, which then grows with the database file (1 GiB mapped took the
        // runner from ~225 MB to ~800 MB on a million due steps).
        switch role {
        case .writer: try execute("PRAGMA cache_size=-\(Self.writerCacheKibibytes)")
        case .reader: try execute("PRAGMA cache_size=-\(Self.readerCacheKibibytes)")
        case .checkpointer, .backup, .inspector: break
        }
        if role == .reader {
            try execute("PRAGMA query_only=ON")
        } else {
            // Every write body runs in a savepoint, which copies each page it changes into the
            // statement journal; past 64 KiB SQLite spills that journal to a temporary file, a
            // pwrite per page. In memory it is a copy, freed when the savepoint is released.
            try execute("PRAGMA temp_store=MEMORY")
        }
    }

    /// The writer's page cache, in KiB: it is never invalidated by other connections' commits.
    ///
    /// Kept small on purpose. When a B-tree balance reorders sibling pages, SQLite parks one of
    /// them under a temporary page number past 1 GiB (the lock-byte page's), which raises the
    /// cache's highest page number; the commit that follows then drops "pages past the end of the
    /// database" by walking every page in the cache. With 16,384 cached pages that walk was 6-9 %
    /// of the writer's samples under the charge runner; with 2,048 it is under one percent, and
    /// the writer's working set (index interior pages and the tails it appends to) still fits.
    static let writerCacheKibibytes = 8_192
    /// Each reader's page cache, in KiB.
    static let readerCacheKibibytes = 16_384
    /// The first column of the first row of `sql`, prepared without caching.
    func singleValue(_ sql: String) throws -> SQLiteValue {
        guard let handle else {
            throw SQLiteError.misuse("the database connection is closed", sql: sql)
        }
        let statement = try Statement(connection: handle, sql: sql, persistent: false)
        guard try statement.step() else { return .null }
        return statement.rowValues().first ?? .null
    }
}
