import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

extension APIFixture {
    /// Records a transaction straight into the store, created at an RFC 3339 instant (so tests control
    /// `createdAt`), for merchant A unless another is given.
    @discardableResult
    func record(
        _ createdAt: String, amount: Int64, currency: String = "EUR", type: TransactionType = .sale, status: TransactionStatus = .approved,
        merchant: Merchant? = nil, change: (inout Transaction) -> Void = { _ in }
    ) async throws -> Transaction {
        let owner = merchant ?? merchantA
        var transaction = Transaction(
            id: OpaqueToken.make(prefix: "txn_", randomBits: 100), merchantID: owner.id, type: type, amount: amount,
            currency: try Currency(code: currency), gateway: "sandbox", now: try #require(Timestamp.parse(createdAt)))
        transaction.status = status
        change(&transaction)
        try await runtime.store.insertTransaction(
            transaction, audit: AuditEntry(merchantID: owner.id, actor: "test", action: "transaction.created", objectType: "transaction", objectID: transaction.id))
        return transaction
    }
}

extension TestResponse {
    /// The ids of a list page, in order.
    var ids: [String] { (json["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
}

@Suite struct TransactionSearchTests {
    /// Five transactions of merchant A (in Europe/Berlin) and one of merchant B, recorded in this order.
    struct Dataset {
        let fixture: APIFixture
        let membership: Transaction, yoga: Transaction, deposit: Transaction, refund: Transaction, check: Transaction

        init() async throws {
            fixture = try await APIFixture { $0.defaults.timeZone = "Europe/Berlin" }
            membership = try await fixture.record("2027-03-01T10:00:00Z", amount: 1000) {
                $0.merchantReference = "cust-alpha"
                $0.maskedNumber = "424242******4242"
                $0.description = "Gym membership March"
                $0.scheduleID = "sch_1"
                $0.secureCardReference = "sc_A"
            }
            yoga = try await fixture.record("2027-03-15T12:00:00Z", amount: 2500, currency: "USD", status: .declined) {
                $0.merchantReference = "cust-beta"
                $0.maskedNumber = "555555******4444"
                $0.description = "Yoga class"
                $0.secureCardReference = "sc_B"
            }
            // 00:30 on 1 April in Berlin (CEST).
            deposit = try await fixture.record("2027-03-31T22:30:00Z", amount: 5000, type: .authorize) {
                $0.merchantReference = "alpha-2"
                $0.maskedNumber = "411111******1111"
                $0.description = "Hotel 50% deposit"
                $0.scheduleID = "sch_2"
            }
            let parent = membership.id
            refund = try await fixture.record("2027-04-02T08:00:00Z", amount: 300, type: .refund) { $0.parentID = parent }
            // 00:30 on 1 March in Berlin (CET).
            check = try await fixture.record("2027-02-28T23:30:00Z", amount: 0, currency: "USD", type: .verify) {
                $0.maskedNumber = "400000******0002"
            }
            try await fixture.record("2027-03-01T10:00:00Z", amount: 1000, merchant: fixture.merchantB) { $0.merchantReference = "cust-alpha" }
        }

        /// Recording order.
        var order: [String] { [membership, yoga, deposit, refund, check].map(\.id) }

        /// Newest first, as the list answers by default.
        func newestFirst(_ transactions: [Transaction]) -> [String] {
            let ids = Set(transactions.map(\.id))
            return order.reversed().filter { ids.contains($0) }
        }
    }

    @Test func everyFilterSelectsExactlyItsTransactions() async throws {
        let data = try await Dataset()
        let cases: [(String, [Transaction])] = [
            ("status=declined", [data.yoga]),
            ("type=authorize", [data.deposit]),
            ("scheduleId=sch_1", [data.membership]),
            ("secureCardReference=sc_B", [data.yoga]),
            ("from=2027-03-01&to=2027-03-31", [data.membership, data.yoga, data.check]),
            ("from=2027-04-01", [data.deposit, data.refund]),
            ("to=2027-02-28", []),
            ("from=2027-04-01&to=2027-04-01", [data.deposit]),
            ("minAmount=1000&maxAmount=2500", [data.membership, data.yoga]),
            ("maxAmount=0", [data.check]),
            ("minAmount=2501", [data.deposit]),
            ("currency=USD", [data.yoga, data.check]),
            ("q=alpha", [data.deposit]),
            ("q=cust-", [data.membership, data.yoga]),
            ("q=YOGA", [data.yoga]),
            ("q=4444", [data.yoga]),
            ("q=0002", [data.check]),
            ("q=\(data.refund.id)", [data.refund]),
            ("q=50%25", [data.deposit]),
            ("q=%25", [data.deposit]),
            ("q=_", []),
            // An amount in major units, as a portal's search box takes it.
            ("q=10.00", [data.membership]),
            ("q=10", [data.membership]),
            ("q=25.5", []),
            ("q=25.00", [data.yoga]),
            ("q=3", [data.refund]),
            ("q=50.00", [data.deposit]),
            ("q=50.00&currency=USD", []),
            ("q=25&currency=USD", [data.yoga]),
            ("q=10.001", []),
            ("q=10.0.0", []),
            ("q=.50", []),
            ("currency=EUR&type=sale&status=approved", [data.membership]),
            ("", [data.membership, data.yoga, data.deposit, data.refund, data.check]),
        ]
        try await data.fixture.live { client in
            for (query, expected) in cases {
                let response = try await client.send(.get, "/v1/transactions?limit=100&" + query, key: data.fixture.readonlyA)
                #expect(response.status == .ok, "\(query): \(response.text)")
                #expect(response.ids == data.newestFirst(expected), "\(query)")
            }
            let other = try await client.send(.get, "/v1/transactions?q=cust-alpha", key: data.fixture.adminB)
            #expect(other.ids.count == 1 && !other.ids.contains(data.membership.id))
        }
    }

    /// A `q` search examines at most `server.searchScanLimit` of the merchant's transactions per
    /// request, so one merchant searching a large history for nothing cannot scan all of it on each
    /// request: ten transactions, a window of four, a match only at either end: the pages are the
    /// first match, an empty page whose cursor continues, then the other match and no cursor.
    /// Another merchant's transactions recorded in between take no place in the window, and a list
    /// without `q` (served by indexes) still answers everything in one page.
    @Test(arguments: ["-createdAt", "createdAt"])
    func aTextSearchExaminesAtMostTheScanLimitPerRequestAndItsCursorContinues(sort: String) async throws {
        let fixture = try await APIFixture { $0.server.searchScanLimit = 4 }
        var recorded: [String] = []
        for index in 0..<10 {
            let transaction = try await fixture.record("2027-05-01T10:00:00Z", amount: Int64(100 + index)) {
                $0.description = index == 0 || index == 9 ? "needle" : "hay"
            }
            recorded.append(transaction.id)
            try await fixture.record("2027-05-01T10:00:00Z", amount: 1, merchant: fixture.merchantB) { $0.description = "needle" }
        }
        let inOrder = sort == "createdAt" ? recorded : recorded.reversed()
        try await fixture.live { client in
            var pages: [[String]] = []
            var cursor: String?
            repeat {
                let response = try await client.send(
                    .get, "/v1/transactions?q=needle&sort=\(sort)" + (cursor.map { "&cursor=\($0)" } ?? ""), key: fixture.adminA)
                #expect(response.status == .ok, "\(response.text)")
                pages.append(response.ids)
                cursor = response.json["nextCursor"] as? String
            } while cursor != nil && pages.count < 10
            #expect(pages == [[inOrder[0]], [], [inOrder[9]]])

            let full = try await client.send(.get, "/v1/transactions?q=hay&limit=2&sort=\(sort)", key: fixture.adminA)
            #expect(full.ids == [inOrder[1], inOrder[2]], "a page that fills inside its window pages on from its last row")
            let next = try await client.send(
                .get, "/v1/transactions?q=hay&limit=2&sort=\(sort)&cursor=\(try #require(full.json["nextCursor"] as? String))", key: fixture.adminA)
            #expect(next.ids == [inOrder[3], inOrder[4]], "the next window starts after the last row shown: \(next.text)")

            let everything = try await client.send(.get, "/v1/transactions?sort=\(sort)", key: fixture.adminA)
            #expect(everything.ids == inOrder && everything.json["nextCursor"] is NSNull)
        }
    }

    @Test func sortCreatedAtListsOldestFirstAndTheDefaultNewestFirst() async throws {
        let data = try await Dataset()
        try await data.fixture.live { client in
            let oldest = try await client.send(.get, "/v1/transactions?sort=createdAt", key: data.fixture.adminA)
            #expect(oldest.ids == data.order)
            let newest = try await client.send(.get, "/v1/transactions?sort=-createdAt", key: data.fixture.adminA)
            #expect(newest.ids == data.order.reversed())
            #expect(try await client.send(.get, "/v1/transactions", key: data.fixture.adminA).ids == newest.ids)
        }
    }

    @Test(arguments: [
        ("status=sleeping", "status"), ("type=charge", "type"), ("from=2027-13-01", "from"), ("to=yesterday", "to"),
        ("from=2027-04-02&to=2027-04-01", "to"), ("minAmount=-1", "minAmount"), ("minAmount=abc", "minAmount"),
        ("maxAmount=1.5", "maxAmount"), ("minAmount=10&maxAmount=5", "maxAmount"), ("currency=eur", "currency"),
        ("currency=XYZ", "currency"), ("sort=amount", "sort"), ("q=" + String(repeating: "x", count: 201), "q"), ("limit=0", "limit"),
        ("limit=101", "limit"), ("cursor=garbage", "cursor"), ("from=9999-12-31", "from"),
    ])
    func badValuesAre422NamingTheParameter(query: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/transactions?" + query, key: fixture.adminA)
            #expect(response.status == .unprocessableContent, "\(query): \(response.text)")
            #expect(response.error["param"] as? String == param, "\(query)")
            #expect(response.error["type"] as? String == "invalid_request_error")
        }
    }

    @Test func aCursorOnlyContinuesTheSortOrderItCameFrom() async throws {
        let data = try await Dataset()
        try await data.fixture.live { client in
            let ascending = try await client.send(.get, "/v1/transactions?sort=createdAt&limit=2", key: data.fixture.adminA)
            let cursor = try #require(ascending.json["nextCursor"] as? String)
            let next = try await client.send(.get, "/v1/transactions?sort=createdAt&limit=2&cursor=\(cursor)", key: data.fixture.adminA)
            #expect(next.ids == Array(data.order[2..<4]))
            let misused = try await client.send(.get, "/v1/transactions?limit=2&cursor=\(cursor)", key: data.fixture.adminA)
            #expect(misused.status == .unprocessableContent)
            #expect(misused.error["param"] as? String == "cursor")
            let descending = try await client.send(.get, "/v1/transactions?limit=2", key: data.fixture.adminA)
            let other = try #require(descending.json["nextCursor"] as? String)
            let reversed = try await client.send(.get, "/v1/transactions?sort=createdAt&cursor=\(other)", key: data.fixture.adminA)
            #expect(reversed.error["code"] as? String == "invalid_cursor")
        }
    }

    /// Keyset pages on `seq`: rows recorded while paging never shift a page. Newest first, every row that
    /// existed when paging began is seen exactly once and none recorded later appears; oldest first,
    /// every row is seen exactly once, including those recorded while paging.
    @Test(arguments: ["-createdAt", "createdAt"])
    func pagingIsStableWhileTransactionsAreRecorded(sort: String) async throws {
        let fixture = try await APIFixture()
        var recordedFirst: [String] = []
        for index in 0..<23 {
            recordedFirst.append(try await fixture.record("2027-05-01T10:00:00Z", amount: Int64(100 + index)).id)
        }
        let existing = recordedFirst
        try await fixture.live { client in
            // A writer recording transactions concurrently with the pages below (whatever the interleaving).
            let background = Task {
                var ids: [String] = []
                for index in 0..<40 { ids.append(try await fixture.record("2027-05-02T10:00:00Z", amount: Int64(500 + index)).id) }
                return ids
            }
            var seen: [String] = []
            var recorded: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await client.send(
                    .get, "/v1/transactions?limit=4&sort=\(sort)" + (cursor.map { "&cursor=\($0)" } ?? ""), key: fixture.adminA)
                #expect(page.status == .ok, "\(page.text)")
                seen += page.ids
                cursor = page.json["nextCursor"] as? String
                // And deterministic inserts between pages.
                recorded.append(try await fixture.record("2027-05-03T10:00:00Z", amount: 7).id)
                pages += 1
            } while cursor != nil && pages < 100
            recorded += try await background.value
            #expect(Set(seen).count == seen.count, "a transaction was listed twice")
            #expect(Set(seen).subtracting(existing).isSubset(of: Set(recorded)))
            let existingSeen = seen.filter(Set(existing).contains)
            if sort == "-createdAt" {
                // Only rows recorded before the first page can precede the existing ones; none follows them.
                #expect(existingSeen == existing.reversed())
                #expect(Array(seen.suffix(existing.count)) == existing.reversed())
            } else {
                #expect(existingSeen == existing)
                #expect(Array(seen.prefix(existing.count)) == existing)
            }
        }
    }
}
