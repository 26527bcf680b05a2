extension SQLiteConnection {
    /// How many times `BEGIN IMMEDIATE` is retried after it waited a whole busy timeout
    /// for another process's write lock and still got `SQLITE_BUSY`.
    static let busyBeginRetries = 5

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and commits it.
    ///
    /// Already inside a transaction (for example in a `SQLiteDatabase.write` body), `body`
    /// runs in a savepoint instead, so it still commits or rolls back as one unit.
    /// - Throws: the first error: `body`'s (after rolling back, if SQLite has not already
    ///   done so), or `SQLiteError` from `BEGIN`/`COMMIT`.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction {
            return try inSavepoint(body)
        }
        try beginImmediateTransaction()
        return try completeTransaction(body)
    }

    /// Runs `body` in a savepoint: released on success, rolled back to and released on throw.
    ///
    /// Outside a transaction this is `inTransaction`, so writes still take the write lock up front.
    /// - Throws: whatever `body` throws, or `SQLiteError` from the savepoint statements.
    public func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        guard isInTransaction else {
            return try inTransaction(body)
        }
        try run("SAVEPOINT vault")
        let result: T
        do {
            result = try body()
        } catch {
            // SQLite may have rolled the whole transaction back itself (SQLITE_FULL, IOERR, ...).
            if isInTransaction {
                try? run("ROLLBACK TO SAVEPOINT vault")
                try? run("RELEASE SAVEPOINT vault")
            }
            notifySavepointRollback()
            throw error
        }
        try run("RELEASE SAVEPOINT vault")
        return result
    }

    /// Runs `body` in a deferred transaction, so all its queries read one WAL snapshot.
    func inReadTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN DEFERRED")
        return try completeTransaction(body)
    }

    /// `BEGIN IMMEDIATE`, retried while another process holds the write lock past the busy timeout.
    func beginImmediateTransaction() throws {
        var retries = 0
        while true {
            do {
                try run("BEGIN IMMEDIATE")
                transactionObservers = []
                return
            } catch let error as SQLiteError where error.isBusy && retries < Self.busyBeginRetries {
                retries += 1
            }
        }
    }

    /// `COMMIT` (after the transaction's observers wrote what they defer to it), rolling back if
    /// SQLite left the transaction open after a failure.
    func commitTransaction() throws {
        do {
            if isInTransaction { try notifyWillCommit() }
            try run("COMMIT")
        } catch {
            rollbackIfStillInTransaction()
            throw error
        }
        notifyEnd(committed: true)
    }

    /// `ROLLBACK` unless SQLite already ended the transaction; errors are dropped so the
    /// caller can rethrow the first error.
    func rollbackIfStillInTransaction() {
        if isInTransaction {
            try? run("ROLLBACK")
        }
        notifyEnd(committed: false)
    }

    private func completeTransaction<T>(_ body: () throws -> T) throws -> T {
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIfStillInTransaction()
            throw error
        }
        try commitTransaction()
        return result
    }
}
