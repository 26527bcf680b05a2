import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's Statistics screen: turnover per period and currency as the API's statistics
/// compute it, drawn as a server-side SVG bar chart (attributes only, no script, no inline style)
/// with the numbers in a table beside it, amounts in the currency's own format; bad input a 400.
@Suite struct ConsoleStatisticsScreenTests {
    typealias Console = ConsoleRoutesTests

    @Test func turnoverPerPeriodAndCurrencyIsDrawnAsAnSVGChartWithTheNumbersInATable() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            var sales: [String] = []
            for (amount, currency) in [(1250, "USD"), (1999, "USD"), (5000, "JPY")] {
                let body = TransactionRoutesTests.rawSale(amount: amount).replacingOccurrences(of: "\"USD\"", with: "\"\(currency)\"")
                let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
                #expect(sale.status == .created)
                sales.append(try #require(sale.json["id"] as? String))
            }
            // Turnover is payments less refunds: 12.50 + 19.99 - 10.00.
            #expect(try await client.send(.post, "/v1/transactions/\(sales[1])/refund", key: fixture.adminA, json: #"{"amount": 1000}"#).status == .created)
            let viewer = try await Console.signIn(client, "viewer", secret: secret)
            let today = CivilDate.today(in: fixture.merchantA.zone)
            let base = "/console/statistics?merchant=\(fixture.merchantA.id)"

            let byDay = try await Console.get(client, base + "&groupBy=day", cookie: viewer)
            #expect(byDay.status == .ok)
            #expect(!byDay.text.contains("not built yet") && byDay.text.contains("aria-current=\"page\">Statistics<"))
            #expect(byDay.text.contains("<svg class=\"chart\"") && byDay.text.contains("<rect "))
            #expect(!byDay.text.contains("<script") && !byDay.text.contains("style="), "the CSP allows no script and no inline style")
            #expect(byDay.text.contains("<h2 id=\"turnover-USD\">USD</h2>") && byDay.text.contains("<h2 id=\"turnover-JPY\">JPY</h2>"))
            #expect(byDay.text.contains("<th scope=\"row\">\(today.iso)</th><td class=\"number\">$22.49</td><td class=\"number\">2</td>"))
            #expect(byDay.text.contains("<th scope=\"row\">\(today.iso)</th><td class=\"number\">¥5,000</td><td class=\"number\">1</td>"))
            #expect(byDay.text.contains("(UTC)"), "the merchant's calendar is named")
            #expect(byDay.text.contains("<tr><th scope=\"row\">\(today.adding(days: -1).iso)</th><td class=\"number\">$0.00</td>"), "empty periods are shown")

            let quarter = (today.month - 1) / 3 + 1
            for (grouping, label) in [("month", String(today.iso.prefix(7))), ("quarter", "\(today.year)-Q\(quarter)"), ("year", "\(today.year)")] {
                let page = try await Console.get(client, base + "&groupBy=\(grouping)", cookie: viewer)
                #expect(page.status == .ok, "\(grouping)")
                #expect(page.text.contains("<th scope=\"row\">\(label)</th><td class=\"number\">$22.49</td>"), "\(grouping)")
            }
            let usdOnly = try await Console.get(client, base + "&groupBy=year&currency=usd", cookie: viewer)
            #expect(usdOnly.text.contains("turnover-USD") && !usdOnly.text.contains("turnover-JPY"))

            for query in ["&groupBy=week", "&from=2026-13-01", "&from=\(today.iso)&to=\(today.adding(days: -1).iso)", "&currency=XX1",
                          "&groupBy=day&from=2020-01-01&to=\(today.iso)"] {
                let refused = try await Console.get(client, base + query, cookie: viewer)
                #expect(refused.status == .badRequest, "\(query)")
                #expect(!refused.text.contains("<svg"), "\(query)")
            }
            #expect(try await Console.get(client, "/console/statistics?merchant=mer_missing", cookie: viewer).status == .badRequest)
        }
    }
}
