extension SQLiteDatabase {
    /// Writes many independent items in one write body (one savepoint, in one group commit), each
    /// ending written or failed on its own.
    ///
    /// `makeBody` is called once per write body, on the writer thread, and returns what writes one
    /// item (it may keep state for the write, such as cached look-ups). When an item throws, the
    /// write body's savepoint is rolled back and the write is done again without that item: so a
    /// failing item changes nothing and the others are still written, without a savepoint per item
    /// (a savepoint copies every page it changes into the statement journal, which costs more than
    /// the item's own writes; a failing item is rare).
    /// - Returns: per item, in order, its value once it is on disk, or why it was not written.
    /// - Throws: `SQLiteError` when the write as a whole failed (the commit, a closed database):
    ///   then no item was written.
    public func writeEach<Item: Sendable, Value: Sendable>(
        _ items: [Item], _ makeBody: @escaping @Sendable (SQLiteConnection) -> (Item) throws -> Value
    ) async throws -> [Result<Value, any Error>] {
        guard !items.isEmpty else { return [] }
        var failures: [Int: any Error] = [:]
        while true {
            let skipped = failures
            do {
                let values = try await write { connection -> [Value] in
                    let body = makeBody(connection)
                    var values: [Value] = []
                    values.reserveCapacity(items.count - skipped.count)
                    for (index, item) in items.enumerated() where skipped[index] == nil {
                        do {
                            values.append(try body(item))
                        } catch {
                            throw ItemFailure(index: index, error: error)
                        }
                    }
                    return values
                }
                var written = values.makeIterator()
                return items.indices.map { index in
                    if let failure = failures[index] { return .failure(failure) }
                    guard let value = written.next() else { preconditionFailure("one value per item written") }
                    return .success(value)
                }
            } catch let failure as ItemFailure {
                failures[failure.index] = failure.error
            }
        }
    }
}

/// An item of a `writeEach` body that threw: its position and its error.
private struct ItemFailure: Error {
    var index: Int
    var error: any Error
}
