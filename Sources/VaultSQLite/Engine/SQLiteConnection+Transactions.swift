import Vault

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
            auditHead = nil
            if auditKeyIsPending { auditKey = nil }
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
                endTransactionState()
                return
            } catch let error as SQLiteError where error.isBusy && retries < Self.busyBeginRetries {
                retries += 1
            }
        }
    }

    /// `COMMIT` (after writing what is deferred to it, the audit chain's head), rolling back if
    /// SQLite left the transaction open after a failure.
    func commitTransaction() throws {
        do {
            try recordPendingAuditHead()
            try run("COMMIT")
        } catch {
            rollbackIfStillInTransaction()
            throw error
        }
        endTransactionState()
    }

    /// `ROLLBACK` unless SQLite already ended the transaction; errors are dropped so the
    /// caller can rethrow the first error.
    func rollbackIfStillInTransaction() {
        if isInTransaction {
            try? run("ROLLBACK")
        }
        if auditKeyIsPending { auditKey = nil }
        endTransactionState()
    }

    /// Forgets what was cached or deferred for the transaction that just began or ended.
    private func endTransactionState() {
        auditHead = nil
        auditHeadIsPending = false
        auditKeyIsPending = false
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
