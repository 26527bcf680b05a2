import Foundation
import Synchronization

/// A settled batch the fake keeps.
struct FakeAuthorizeNetBatch: Sendable {
    var batchID: String
    var settlementTime: Date
    var transactionIDs: [String]
}

extension FakeAuthorizeNetServer {
    /// Settles every transaction not yet in a batch that settles (captured sales and refunds, and
    /// declines, as the real batches list them) into a new batch settled at `time`: captured
    /// becomes `settledSuccessfully`, refunds `refundSettledSuccessfully`; they leave the unsettled list.
    @discardableResult
    func settleBatch(at time: Date) -> String {
        state.withLock { state in
            let id = String(state.nextBatchID)
            state.nextBatchID += 1
            let settling = state.transactions.values
                .filter { state.batchOf[$0.transId] == nil && ["capturedPendingSettlement", "refundPendingSettlement", "declined"].contains($0.status) }
                .sorted { $0.sequence < $1.sequence }
            for transaction in settling {
                state.batchOf[transaction.transId] = id
                switch transaction.status {
                case "capturedPendingSettlement": state.transactions[transaction.transId]?.status = "settledSuccessfully"
                case "refundPendingSettlement": state.transactions[transaction.transId]?.status = "refundSettledSuccessfully"
                default: break
                }
            }
            state.batches.append(FakeAuthorizeNetBatch(batchID: id, settlementTime: time, transactionIDs: settling.map(\.transId)))
            return id
        }
    }

    /// Handles `getSettledBatchListRequest`: batches settled between `firstSettlementDate` and
    /// `lastSettlementDate` (the last 24 hours without them), a range of at most 31 days.
    func settledBatchList(_ request: FakeJSON) -> FakeJSON {
        if takeReportFailure("getSettledBatchListRequest") { return Self.apiError("E00001", "An error occurred during processing.") }
        let now = Date()
        let firstText = request["firstSettlementDate"]?.text
        let lastText = request["lastSettlementDate"]?.text
        let first: Date, last: Date
        switch (firstText.flatMap(Self.dateTime), lastText.flatMap(Self.dateTime)) {
        case let (from?, to?):
            (first, last) = (from, to)
        case (nil, nil) where firstText == nil && lastText == nil:
            (first, last) = (now.addingTimeInterval(-86_400), now)
        default:
            return Self.apiError("E00003", "The settlement dates are invalid.")
        }
        guard first <= last, last.timeIntervalSince(first) <= 31 * 86_400 else {
            return Self.apiError("E00003", "The date range cannot exceed 31 days.")
        }
        let batches = state.withLock { $0.batches.filter { $0.settlementTime >= first && $0.settlementTime <= last } }
        var members: [(String, FakeJSON)] = []
        if !batches.isEmpty {
            members.append(("batchList", .array(batches.map { batch in
                .object([
                    ("batchId", .string(batch.batchID)),
                    ("settlementTimeUTC", .string(Self.dateTimeText(batch.settlementTime))),
                    ("settlementTimeLocal", .string("2030-01-01T04:00:00")),
                    ("settlementState", .string("settledSuccessfully")),
                    ("paymentMethod", .string("creditCard")),
                    ("marketType", .string("eCommerce")),
                    ("product", .string("Card Not Present")),
                ])
            })))
        }
        members.append(("messages", Self.okMessages(batches.isEmpty ? ("I00004", "No records found.") : ("I00001", "Successful."))))
        return .object(members)
    }

    /// Handles `getTransactionListRequest`: one batch's transactions, paged, oldest first unless
    /// `sorting.orderDescending` is true.
    func batchTransactionList(_ request: FakeJSON) -> FakeJSON {
        if takeReportFailure("getTransactionListRequest") { return Self.apiError("E00001", "An error occurred during processing.") }
        let batchID = request["batchId"]?.text ?? ""
        let descending = request["sorting"]?["orderDescending"]?.text == "true"
        let found: [FakeAuthorizeNetTransaction]? = state.withLock { state in
            guard let batch = state.batches.first(where: { $0.batchID == batchID }) else { return nil }
            return batch.transactionIDs.compactMap { state.transactions[$0] }
        }
        guard let found else { return Self.apiError("E00003", "The batch id is invalid.") }
        let sorted = found.sorted { descending ? $0.sequence > $1.sequence : $0.sequence < $1.sequence }
        return listReply(sorted, request)
    }

    /// A transaction list reply (unsettled or one batch's): the page `paging` asks for.
    func listReply<Transactions: Collection>(_ all: Transactions, _ request: FakeJSON) -> FakeJSON
        where Transactions.Element == FakeAuthorizeNetTransaction {
        let limit = request["paging"]?["limit"]?.text.flatMap { Int($0) } ?? 1_000
        let offset = request["paging"]?["offset"]?.text.flatMap { Int($0) } ?? 1
        guard (1...1_000).contains(limit), (1...100_000).contains(offset) else {
            return Self.apiError("E00003", "The paging values are invalid.")
        }
        let page = all.dropFirst((offset - 1) * limit).prefix(limit)
        var members: [(String, FakeJSON)] = []
        if !page.isEmpty {
            members.append(("transactions", .array(page.map { transaction in
                .object([
                    ("transId", .string(transaction.transId)),
                    ("submitTimeUTC", .string("2030-01-01T10:00:00Z")),
                    ("submitTimeLocal", .string("2030-01-01T04:00:00")),
                    ("transactionStatus", .string(transaction.status)),
                    ("invoiceNumber", .string(transaction.invoiceNumber ?? "")),
                    ("accountType", .string("Visa")),
                    ("accountNumber", .string("XXXX" + transaction.last4)),
                    ("settleAmount", .number(transaction.amountText)),
                    ("marketType", .string("eCommerce")),
                    ("product", .string("Card Not Present")),
                ])
            })))
        }
        members.append(("totalNumInResultSet", .number(String(all.count))))
        members.append(("messages", Self.okMessages(all.isEmpty ? ("I00004", "No records found.") : ("I00001", "Successful."))))
        return .object(members)
    }

    /// Makes the next `count` reporting requests `root` fail with `E00001` (the others answer).
    func failReports(_ root: String, count: Int = 1) {
        state.withLock { $0.failingReports[root, default: 0] += count }
    }

    func takeReportFailure(_ root: String) -> Bool {
        state.withLock { state in
            guard let left = state.failingReports[root], left > 0 else { return false }
            state.failingReports[root] = left - 1
            return true
        }
    }

    /// How many reporting requests of a kind (`getSettledBatchListRequest`, ...) were received.
    func requestCount(_ root: String) -> Int {
        core.requests.filter { FakeJSON.parse(Self.stripBOM($0.body))?[root] != nil }.count
    }

    static func dateTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    static func dateTimeText(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}

extension FakeAuthorizeNetServer {
    /// Adds `count` approved, unsettled sales (invoice numbers `BULK-<n>`) straight to the fake's
    /// records, older than every transaction made later: a busy merchant's unsettled list.
    func addUnsettledSales(count: Int) {
        state.withLock { state in
            for index in 0..<count {
                let id = state.newTransactionID()
                state.insert(FakeAuthorizeNetTransaction(
                    transId: id, type: "authCaptureTransaction", amount: 10_000, amountText: "1.00", invoiceNumber: "BULK-\(index)",
                    last4: "1111", status: "capturedPendingSettlement", responseCode: "1", reasonCode: "1",
                    reasonText: Self.reasonTexts["1"] ?? "", authCode: "A" + String(id.suffix(5)), avs: "Y", cvv: "M",
                    captured: 10_000, sequence: state.nextSequence()))
            }
        }
    }
}
