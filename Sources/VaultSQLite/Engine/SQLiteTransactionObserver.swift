/// Code above the engine that takes part in the open write transaction, as GRDB's
/// `TransactionObserver`: registered with `SQLiteConnection.observeTransaction` for that transaction
/// only, told before `COMMIT` (and may still write then), on every rollback, and at the end.
///
/// The engine knows nothing of what observers do (the store's audit chain writes its head before
/// `COMMIT` this way). Called on the connection's thread.
public protocol SQLiteTransactionObserver: AnyObject {
    /// Just before `COMMIT`, inside the transaction; a throw rolls the transaction back and is the
    /// commit's error.
    func transactionWillCommit(_ connection: SQLiteConnection) throws
    /// The transaction rolled back: to a savepoint (`toSavepoint`; the observer stays registered,
    /// as the transaction goes on) or as a whole.
    func transactionDidRollback(toSavepoint: Bool)
    /// The transaction ended, committed or not; the observer is then dropped.
    func transactionDidEnd(committed: Bool)
}

extension SQLiteConnection {
    /// Registers `observer` for the open transaction (once; registering it again does nothing).
    /// Outside a transaction it is not registered.
    public func observeTransaction(_ observer: any SQLiteTransactionObserver) {
        guard isInTransaction, !transactionObservers.contains(where: { $0 === observer }) else { return }
        transactionObservers.append(observer)
    }

    /// Tells the observers of a savepoint rollback.
    func notifySavepointRollback() {
        for observer in transactionObservers { observer.transactionDidRollback(toSavepoint: true) }
    }

    /// Lets the observers write before `COMMIT`.
    func notifyWillCommit() throws {
        for observer in transactionObservers { try observer.transactionWillCommit(self) }
    }

    /// Tells the observers the transaction ended (after a rollback of all of it, first that) and drops them.
    func notifyEnd(committed: Bool) {
        let observers = transactionObservers
        transactionObservers = []
        for observer in observers {
            if !committed { observer.transactionDidRollback(toSavepoint: false) }
            observer.transactionDidEnd(committed: committed)
        }
    }

    /// The value of type `T` this connection keeps for code above the engine (the store's audit chain
    /// writer), made by `make` the first time.
    public func attachment<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let existing = attachments[key] as? T { return existing }
        let value = make()
        attachments[key] = value
        return value
    }
}
