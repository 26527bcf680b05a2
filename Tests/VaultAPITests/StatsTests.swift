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
@testable import VaultAppTestSupport

/// `GET /v1/stats`. Expectations are worked out by hand for a merchant in Europe/Berlin, where summer
/// time began on 2027-03-28 at 02:00 (CET +01 to CEST +02) and ended on 2027-10-31 at 03:00.
@Suite struct StatsTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func date(_ text: String) -> CivilDate { CivilDate(iso: text)! }

    static func periods(_ from: String, _ to: String, _ grouping: StatisticsGrouping) -> [StatisticsPeriod] {
        StatisticsPeriod.periods(from: date(from), through: date(to), grouping: grouping, zone: berlin)
    }

    static func utc(_ instant: Date) -> String { Timestamp.string(instant) }

    @Test func daysFollowLocalMidnightAcrossBothDaylightSavingChanges() {
        let spring = Self.periods("2027-03-27", "2027-03-29", .day)
        #expect(spring.map(\.label) == ["2027-03-27", "2027-03-28", "2027-03-29"])
        #expect(spring.map { Self.utc($0.start) } == ["2027-03-26T23:00:00.000Z", "2027-03-27T23:00:00.000Z", "2027-03-28T22:00:00.000Z"])
        #expect(spring.map { Self.utc($0.end) } == ["2027-03-27T23:00:00.000Z", "2027-03-28T22:00:00.000Z", "2027-03-29T22:00:00.000Z"])
        #expect(spring[1].end.timeIntervalSince(spring[1].start) == 23 * 3600)

        let autumn = Self.periods("2027-10-31", "2027-10-31", .day)
        #expect(autumn.map { Self.utc($0.start) } == ["2027-10-30T22:00:00.000Z"])
        #expect(autumn.map { Self.utc($0.end) } == ["2027-10-31T23:00:00.000Z"])
        #expect(autumn[0].end.timeIntervalSince(autumn[0].start) == 25 * 3600)
    }

    @Test func monthsQuartersAndYearsAreClippedToTheRangeAndLabelled() {
        let months = Self.periods("2027-01-15", "2027-04-10", .month)
        #expect(months.map(\.label) == ["2027-01", "2027-02", "2027-03", "2027-04"])
        #expect(months.map(\.firstDay.iso) == ["2027-01-15", "2027-02-01", "2027-03-01", "2027-04-01"])
        #expect(months.map(\.lastDay.iso) == ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-10"])
        #expect(Self.utc(months[2].start) == "2027-02-28T23:00:00.000Z")
        #expect(Self.utc(months[2].end) == "2027-03-31T22:00:00.000Z")
        #expect(zip(months, months.dropFirst()).allSatisfy { $0.end == $1.start })

        let quarters = Self.periods("2027-02-10", "2027-11-05", .quarter)
        #expect(quarters.map(\.label) == ["2027-Q1", "2027-Q2", "2027-Q3", "2027-Q4"])
        #expect(quarters.map(\.firstDay.iso) == ["2027-02-10", "2027-04-01", "2027-07-01", "2027-10-01"])
        #expect(quarters.map(\.lastDay.iso) == ["2027-03-31", "2027-06-30", "2027-09-30", "2027-11-05"])

        let years = Self.periods("2026-06-01", "2028-01-31", .year)
        #expect(years.map(\.label) == ["2026", "2027", "2028"])
        #expect(Self.utc(years[1].start) == "2026-12-31T23:00:00.000Z")
        #expect(Self.utc(years[2].end) == "2028-01-31T23:00:00.000Z")
    }

    @Test(arguments: [(Int64(3001), Int64(2), Int64(1501)), (5401, 5, 1080), (1, 3, 0), (2, 3, 1), (5, 2, 3), (7, 7, 1)])
    func averagesRoundHalfUp(turnover: Int64, count: Int64, average: Int64) {
        #expect(AmountSummary(count: count, turnover: turnover, minimum: 0, maximum: turnover).average == average)
        #expect(AmountSummary().average == nil)
    }

    @Test func rangesAreLimitedPerGrouping() throws {
        #expect(throws: Never.self) { try TransactionStatistics.validate(from: Self.date("2028-01-01"), to: Self.date("2028-12-31"), grouping: .day) }
        #expect(throws: Never.self) { try TransactionStatistics.validate(from: Self.date("2027-01-01"), to: Self.date("2028-01-01"), grouping: .day) }
        #expect(throws: TransactionError.self) { try TransactionStatistics.validate(from: Self.date("2027-01-01"), to: Self.date("2028-01-02"), grouping: .day) }
        #expect(throws: Never.self) { try TransactionStatistics.validate(from: Self.date("2000-01-01"), to: Self.date("2049-12-31"), grouping: .month) }
        #expect(throws: TransactionError.self) { try TransactionStatistics.validate(from: Self.date("2000-01-01"), to: Self.date("2050-01-01"), grouping: .year) }
        #expect(throws: TransactionError.self) { try TransactionStatistics.validate(from: Self.date("2027-01-02"), to: Self.date("2027-01-01"), grouping: .month) }
    }

    /// Payments of merchant A (Berlin), by local time:
    /// - `c` 2027-03-27T23:30Z = 28 Mar 00:30 CET, declined 500
    /// - `a` 2027-03-28T21:30Z = 28 Mar 23:30 CEST, approved 1000
    /// - `b` 2027-03-28T22:30Z = 29 Mar 00:30 CEST, approved 2001
    /// - `d` 2027-03-31T23:30Z = 1 Apr 01:30 CEST, approved 4000
    /// - `e` 2027-03-31T21:59:59.999Z = 31 Mar 23:59:59.999, refunded 700
    /// - `f` 2027-10-31T22:30Z = 31 Oct 23:30 CET (not November), approved 300
    /// - `g` 2027-02-28T23:00Z = 1 Mar 00:00 CET (March's first instant), captured authorization 1200
    /// - `h` a refund of 999 on 15 Mar (not a payment), `i` a USD sale of 5000 on 15 Mar,
    ///   and a sale of merchant B that must never count.
    /// Turnover is approved sales and captures less approved refunds: `g` is an
    /// authorization (its capture would count, it has none), `c` was declined; March's is
    /// 1000 + 2001 + 700 - 999 = 2702 over 3 payments; `byStatus` still counts every status.
    static func seeded() async throws -> APIFixture {
        let fixture = try await APIFixture { $0.defaults.timeZone = "Europe/Berlin" }
        try await fixture.record("2027-02-28T23:00:00Z", amount: 1200, type: .authorize, status: .captured)
        try await fixture.record("2027-03-27T23:30:00Z", amount: 500, status: .declined)
        try await fixture.record("2027-03-28T21:30:00Z", amount: 1000)
        try await fixture.record("2027-03-28T22:30:00Z", amount: 2001)
        try await fixture.record("2027-03-31T21:59:59.999Z", amount: 700, status: .refunded)
        try await fixture.record("2027-03-31T23:30:00Z", amount: 4000)
        try await fixture.record("2027-10-31T22:30:00Z", amount: 300)
        try await fixture.record("2027-03-15T12:00:00Z", amount: 999, type: .refund)
        try await fixture.record("2027-03-15T12:00:00Z", amount: 5000, currency: "USD")
        try await fixture.record("2027-03-15T12:00:00Z", amount: 1_000_000, merchant: fixture.merchantB)
        return fixture
    }

    /// `[period: [count, turnover, min, max, average]]` of the only currency of each group.
    static func figures(_ response: TestResponse) -> [String: [Int?]] {
        var table: [String: [Int?]] = [:]
        for group in response.json["groups"] as? [[String: Any]] ?? [] {
            guard let entry = (group["byCurrency"] as? [[String: Any]])?.first else { continue }
            table[group["period"] as? String ?? "?"] = ["count", "turnover", "min", "max", "average"].map { entry[$0] as? Int }
        }
        return table
    }

    /// `[status: [count, amount, min, max, average]]` of the only currency of `period`.
    static func byStatus(_ response: TestResponse, period: String) -> [String: [Int?]] {
        let group = (response.json["groups"] as? [[String: Any]])?.first { $0["period"] as? String == period }
        let entry = (group?["byCurrency"] as? [[String: Any]])?.first
        var table: [String: [Int?]] = [:]
        for (status, value) in entry?["byStatus"] as? [String: [String: Any]] ?? [:] {
            table[status] = ["count", "amount", "min", "max", "average"].map { value[$0] as? Int }
        }
        return table
    }

    @Test func monthsCountEachPaymentInItsLocalMonthAndListEmptyMonths() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/stats?from=2027-01-01&to=2027-12-31&groupBy=month&currency=EUR", key: fixture.readonlyA)
            #expect(response.status == .ok, "\(response.text)")
            #expect(response.json["timeZone"] as? String == "Europe/Berlin")
            #expect(response.json["currencies"] as? [String] == ["EUR"])
            #expect(response.json["types"] as? [String] == ["sale", "authorize"])
            let groups = response.json["groups"] as? [[String: Any]] ?? []
            #expect(groups.compactMap { $0["period"] as? String } == (1...12).map { String(format: "2027-%02d", $0) })
            let figures = Self.figures(response)
            let empty: [Int?] = [0, 0, nil, nil, nil]
            #expect(figures["2027-01"] == empty)
            #expect(figures["2027-02"] == empty)
            #expect(figures["2027-03"] == [3, 2702, 700, 2001, 1234])
            #expect(figures["2027-04"] == [1, 4000, 4000, 4000, 4000])
            #expect(figures["2027-10"] == [1, 300, 300, 300, 300])
            #expect(figures["2027-11"] == empty)
            #expect(Self.byStatus(response, period: "2027-03") == [
                "approved": [2, 3001, 1000, 2001, 1501], "declined": [1, 500, 500, 500, 500], "refunded": [1, 700, 700, 700, 700],
                "captured": [1, 1200, 1200, 1200, 1200],
            ])
            #expect(Self.byStatus(response, period: "2027-01").isEmpty)
            let march = try #require(groups.first { $0["period"] as? String == "2027-03" })
            #expect(march["startsAt"] as? String == "2027-02-28T23:00:00.000Z")
            #expect(march["endsAt"] as? String == "2027-03-31T22:00:00.000Z")
            #expect(march["from"] as? String == "2027-03-01" && march["to"] as? String == "2027-03-31")
        }
    }

    @Test func daysAcrossTheSpringChangeQuartersAndYears() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let days = try await client.send(.get, "/v1/stats?from=2027-03-27&to=2027-03-29&currency=EUR", key: fixture.adminA)
            #expect(days.json["groupBy"] as? String == "day")
            #expect(Self.figures(days) == [
                "2027-03-27": [0, 0, nil, nil, nil], "2027-03-28": [1, 1000, 1000, 1000, 1000], "2027-03-29": [1, 2001, 2001, 2001, 2001],
            ])
            let quarters = try await client.send(.get, "/v1/stats?from=2027-01-01&to=2027-12-31&groupBy=quarter&currency=EUR", key: fixture.adminA)
            #expect(Self.figures(quarters) == [
                "2027-Q1": [3, 2702, 700, 2001, 1234], "2027-Q2": [1, 4000, 4000, 4000, 4000], "2027-Q3": [0, 0, nil, nil, nil],
                "2027-Q4": [1, 300, 300, 300, 300],
            ])
            let years = try await client.send(.get, "/v1/stats?from=2026-01-01&to=2028-12-31&groupBy=year&currency=EUR", key: fixture.adminA)
            #expect(Self.figures(years) == [
                "2026": [0, 0, nil, nil, nil], "2027": [5, 7002, 300, 4000, 1600], "2028": [0, 0, nil, nil, nil],
            ])
        }
    }

    @Test func withoutACurrencyTheFiguresAreSplitPerCurrency() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/stats?from=2027-03-01&to=2027-04-30&groupBy=month", key: fixture.adminA)
            #expect(response.json["currency"] is NSNull)
            #expect(response.json["currencies"] as? [String] == ["EUR", "USD"])
            let groups = response.json["groups"] as? [[String: Any]] ?? []
            let entries = groups.map { group in
                (group["byCurrency"] as? [[String: Any]] ?? []).map { "\($0["currency"] ?? "?"):\($0["count"] ?? "?"):\($0["turnover"] ?? "?")" }
            }
            #expect(entries == [["EUR:3:2702", "USD:1:5000"], ["EUR:1:4000", "USD:0:0"]])

            let none = try await client.send(.get, "/v1/stats?from=2030-01-01&to=2030-01-03", key: fixture.adminA)
            #expect(none.json["currencies"] as? [String] == [])
            #expect((none.json["groups"] as? [[String: Any]])?.map { ($0["byCurrency"] as? [Any])?.count } == [0, 0, 0])
        }
    }

    @Test func typeCountsAnotherTransactionTypeAndOtherMerchantsNeverCount() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let refunds = try await client.send(.get, "/v1/stats?from=2027-03-01&to=2027-03-31&groupBy=month&type=refund", key: fixture.adminA)
            #expect(Self.figures(refunds) == ["2027-03": [0, -999, nil, nil, nil]])
            #expect(Self.byStatus(refunds, period: "2027-03") == ["approved": [1, 999, 999, 999, 999]])
            let other = try await client.send(.get, "/v1/stats?from=2027-03-01&to=2027-03-31&groupBy=month&currency=EUR", key: fixture.adminB)
            #expect(other.json["timeZone"] as? String == "Europe/Berlin")
            #expect(Self.figures(other) == ["2027-03": [1, 1_000_000, 1_000_000, 1_000_000, 1_000_000]])
        }
    }

    @Test(arguments: [
        ("to=2027-01-31", "from"), ("from=2027-01-01", "to"), ("from=2027-02-30&to=2027-03-01", "from"), ("from=2027-01-01&to=2027-1-31", "to"),
        ("from=2027-01-01&to=2027-01-31&groupBy=week", "groupBy"), ("from=2027-01-01&to=2027-01-31&currency=usd", "currency"),
        ("from=2027-01-01&to=2027-01-31&type=payment", "type"), ("from=2027-02-01&to=2027-01-31", "to"),
        ("from=2027-01-01&to=2028-01-02", "to"), ("from=2000-01-01&to=2050-01-01&groupBy=month", "to"),
    ])
    func badRangesAndValuesAre422NamingTheParameter(query: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/stats?" + query, key: fixture.adminA)
            #expect(response.status == .unprocessableContent, "\(query): \(response.text)")
            #expect(response.error["param"] as? String == param, "\(query)")
        }
    }

    @Test func theLongestRangesAnswerEveryPeriodAndRunnerKeysAreRefused() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let days = try await client.send(.get, "/v1/stats?from=2028-01-01&to=2028-12-31&currency=EUR", key: fixture.adminA)
            #expect((days.json["groups"] as? [Any])?.count == 366)
            let months = try await client.send(.get, "/v1/stats?from=2000-01-01&to=2049-12-31&groupBy=month&currency=EUR", key: fixture.adminA)
            #expect((months.json["groups"] as? [Any])?.count == 600)
            #expect(Self.figures(months)["2027-03"] == [3, 2702, 700, 2001, 1234])
            let runner = try await client.send(.get, "/v1/stats?from=2027-01-01&to=2027-01-31", key: fixture.runnerA)
            #expect(runner.status == .forbidden)
            #expect(try await client.send(.get, "/v1/stats?from=2027-01-01&to=2027-01-31", key: nil).status == .unauthorized)
        }
    }

    /// The served document's schema properties, through `$ref`.
    static func documented(_ name: String) throws -> (properties: Set<String>, required: Set<String>) {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let schema = try #require(schemas?[name] as? [String: Any], "no schema \(name)")
        return (Set((schema["properties"] as? [String: Any] ?? [:]).keys), Set(schema["required"] as? [String] ?? []))
    }

    @Test func theAnswerCarriesExactlyTheDocumentedFields() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/stats?from=2027-03-01&to=2027-03-31&groupBy=month", key: fixture.adminA)
            let group = try #require((response.json["groups"] as? [[String: Any]])?.first)
            let currency = try #require((group["byCurrency"] as? [[String: Any]])?.first)
            let status = try #require((currency["byStatus"] as? [String: [String: Any]])?["approved"])
            for (object, name) in [(response.json, "Statistics"), (group, "StatisticsGroup"), (currency, "CurrencyStatistics"), (status, "StatisticsFigures")] {
                let declared = try Self.documented(name)
                #expect(Set(object.keys) == declared.properties, "\(name)")
                #expect(declared.required == declared.properties, "\(name)")
            }
        }
    }
}
