import Vault

extension GroupedWrites {
    /// Grouped writes on SQLite's single writer: each write is one `writeEach` body (one job and
    /// one savepoint for every item of it, each item in its own savepoint inside).
    /// - Parameters:
    ///   - bodiesInFlight: write bodies queued at once; two keep the writer busy (one is written
    ///     while the next gathers).
    ///   - makeBody: as for `writeEach`: called once per body on the writer thread; returns what
    ///     writes one item.
    convenience init(database: SQLiteDatabase, bodiesInFlight: Int = 2,
                     _ makeBody: @escaping @Sendable (SQLiteConnection) -> (Item) throws -> Value) {
        self.init(writesInFlight: bodiesInFlight) { items in try await database.writeEach(items, makeBody) }
    }
}
