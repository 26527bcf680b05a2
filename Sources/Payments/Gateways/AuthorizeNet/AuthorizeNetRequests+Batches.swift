import Foundation

extension AuthorizeNetRequests {
    /// `getSettledBatchListRequest` for batches settled between `from` and `to` (at most 31 days
    /// apart), in the XSD's order: `includeStatistics`, `firstSettlementDate`, `lastSettlementDate`.
    func settledBatches(from: Date, to: Date) -> [UInt8] {
        var body = OrderedJSONObject()
        body.add("merchantAuthentication", merchantAuthentication)
        body.add("includeStatistics", .bool(false))
        body.add("firstSettlementDate", .string(Self.settlementDate(from)))
        body.add("lastSettlementDate", .string(Self.settlementDate(to)))
        return OrderedJSON.object([("getSettledBatchListRequest", body.json)]).serialized()
    }

    /// `getTransactionListRequest` for one batch, oldest first, one page of 1,000.
    func batchTransactions(batchID: String, page: Int) -> [UInt8] {
        var body = OrderedJSONObject()
        body.add("merchantAuthentication", merchantAuthentication)
        body.add("batchId", .string(batchID))
        body.add("sorting", .object([("orderBy", .string("submitTimeUTC")), ("orderDescending", .bool(false))]))
        body.add("paging", .object([("limit", .string(String(Self.pageSize))), ("offset", .string(String(page)))]))
        return OrderedJSON.object([("getTransactionListRequest", body.json)]).serialized()
    }

    /// An XSD `dateTime` in UTC to the second, `2030-01-31T23:59:59Z`.
    static func settlementDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
