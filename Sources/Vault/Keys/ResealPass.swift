/// One pass of `vault keys rotate --data` over a merchant's rows of one kind: pages of rows,
/// newest first, each re-sealed and replaced only if unchanged since it was read, so the pass is
/// safe while serving. Receipts and webhook events both re-seal through it.
public enum ResealPass {
    /// Walks every row `page(before, limit)` returns, `batchSize` at a time, calling `reseal` on
    /// each; `reseal` answers whether it replaced the row.
    /// - Returns: how many rows were re-sealed.
    public static func run<Row>(
        batchSize: Int, page: (_ before: Int64?, _ limit: Int) async throws -> [Row], sequence: (Row) -> Int64,
        reseal: (Row) async throws -> Bool
    ) async throws -> Int {
        var total = 0
        var before: Int64?
        while true {
            let rows = try await page(before, batchSize)
            guard let last = rows.last else { return total }
            for row in rows where try await reseal(row) { total += 1 }
            before = sequence(last)
        }
    }
}
