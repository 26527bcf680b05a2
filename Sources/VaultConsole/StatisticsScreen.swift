import Foundation
import Hummingbird
import Payments
import Vault

/// Statistics: a merchant's turnover (approved sales and captures less approved refunds) per period
/// (day, month, quarter or year on the merchant's calendar) and currency, the figures the API's
/// `GET /v1/stats` serves, computed by the same `TransactionStatistics`. Each currency gets a bar
/// chart drawn by the server as SVG (element attributes only: the Content-Security-Policy allows
/// no inline style and there is no script) with the same numbers in a table beside it.
struct StatisticsScreen {
    let services: ConsoleServices

    /// Periods shown when the form gives no `from`: 31 days, 12 months, 8 quarters, 5 years.
    static func defaultFrom(to: CivilDate, grouping: StatisticsGrouping) -> CivilDate {
        let (year, month, _) = to.components
        switch grouping {
        case .day: return to.adding(days: -30)
        case .month: return CivilDate.clamped(year: year, month: month, day: 1).adding(months: -11)
        case .quarter: return CivilDate.clamped(year: year, month: (month - 1) / 3 * 3 + 1, day: 1).adding(months: -21)
        case .year: return CivilDate.clamped(year: year - 4, month: 1, day: 1)
        }
    }

    func page(query: [String: String], signed: ConsoleSignedIn) async throws -> Response {
        let merchants = try await services.merchants.merchants().filter { signed.account.covers(merchantID: $0.id) }
        guard let merchant = query["merchant"].flatMap({ id in merchants.first { $0.id == id } }) ?? (query["merchant"] == nil ? merchants.first : nil)
        else {
            return screen(signed: signed, merchants: merchants, query: query, body: Self.error("Choose a merchant you may see."), status: .badRequest)
        }
        guard let grouping = StatisticsGrouping(rawValue: query["groupBy"].flatMap { $0.isEmpty ? nil : $0 } ?? "month") else {
            return screen(signed: signed, merchants: merchants, query: query, body: Self.error("Group by day, month, quarter or year."), status: .badRequest)
        }
        let currencyText = (query["currency"] ?? "").trimmingCharacters(in: .whitespaces).uppercased()
        let currency = currencyText.isEmpty ? nil : try? Currency(code: currencyText)
        guard currencyText.isEmpty || currency != nil else {
            return screen(signed: signed, merchants: merchants, query: query, body: Self.error("The currency is an ISO 4217 code, e.g. USD."), status: .badRequest)
        }
        let toText = query["to"] ?? "", fromText = query["from"] ?? ""
        let to = toText.isEmpty ? CivilDate.today(in: merchant.zone) : CivilDate(iso: toText)
        let from = fromText.isEmpty ? to.map { Self.defaultFrom(to: $0, grouping: grouping) } : CivilDate(iso: fromText)
        guard let from, let to else {
            return screen(signed: signed, merchants: merchants, query: query, body: Self.error("Dates are written yyyy-MM-dd."), status: .badRequest)
        }
        let statistics: TransactionStatistics
        do {
            statistics = try await services.statistics(merchant, from, to, grouping, currency)
        } catch let error as TransactionError {
            let message = if case .invalid(_, _, let message) = error { message } else { "The statistics could not be computed." }
            return screen(signed: signed, merchants: merchants, query: query, body: Self.error(message), status: .badRequest)
        }
        var filled = query
        filled["merchant"] = merchant.id
        filled["groupBy"] = grouping.rawValue
        filled["from"] = from.iso
        filled["to"] = to.iso
        let intro: Markup = """
            <p>Turnover of <strong>\(merchant.name)</strong>: approved sales and captures less approved refunds, per \(grouping.rawValue),
            \(from.iso) to \(to.iso) on the merchant's calendar (\(merchant.zoneName)).</p>
            """
        let charts =
            statistics.currencies.isEmpty
            ? [Markup("<p role=\"status\">No transaction in this range.</p>")]
            : statistics.currencies.map { code in Self.currencySection(code: code, statistics: statistics) }
        return screen(signed: signed, merchants: merchants, query: filled, body: "\(intro)\(charts)", status: .ok)
    }

    /// One currency: its chart and its table.
    static func currencySection(code: String, statistics: TransactionStatistics) -> Markup {
        let currency = try? Currency(code: code)
        let bars = statistics.periods.map { period -> (label: String, turnover: Int64, count: Int64) in
            let figures = period.currencies.first { $0.currency == code }
            return (period.period.label, figures?.turnover ?? 0, figures?.payments.count ?? 0)
        }
        let written = { (minor: Int64) in currency.map { ConsoleFormat.amount(minor, $0) } ?? "\(minor) \(code)" }
        let rows = bars.map { bar -> Markup in
            "<tr><th scope=\"row\">\(bar.label)</th><td class=\"number\">\(written(bar.turnover))</td><td class=\"number\">\(Int(bar.count))</td></tr>"
        }
        let total = bars.reduce(Int64(0)) { $0 + $1.turnover }
        return """
            <section aria-labelledby="turnover-\(code)"><h2 id="turnover-\(code)">\(code)</h2>
            <div class="pair">
            \(chart(bars.map { ($0.label, $0.turnover) }, code: code, written: written))
            <div class="table" role="region" aria-label="Turnover in \(code)" tabindex="0"><table>
            <thead><tr><th scope="col">Period</th><th scope="col">Turnover</th><th scope="col">Payments</th></tr></thead>
            <tbody>\(rows)</tbody><tfoot><tr><th scope="row">Total</th><td class="number">\(written(total))</td><td></td></tr></tfoot></table></div>
            </div></section>
            """
    }

    /// A bar per period, scaled to the largest turnover; a negative turnover (more refunded than
    /// taken) goes below the axis. Attributes only: no `style`, no script.
    static func chart(_ bars: [(label: String, value: Int64)], code: String, written: (Int64) -> String) -> Markup {
        let width = 600, height = 240, top = 10, bottom = 30, left = 36
        let plot = height - top - bottom
        let highest = max(bars.map(\.value).max() ?? 0, 0), lowest = min(bars.map(\.value).min() ?? 0, 0)
        let span = max(Double(highest - lowest), 1)
        let axis = top + Int((Double(highest) / span * Double(plot)).rounded())
        let slot = Double(width - 2 * left) / Double(max(bars.count, 1))
        let barWidth = max(Int(slot * 0.7), 1)
        // At most six labels under the axis, so they never run into each other.
        let labelEvery = max(1, Int((Double(bars.count) / 6).rounded(.up)))
        var shapes: [Markup] = []
        for (index, bar) in bars.enumerated() {
            let x = left + Int(Double(index) * slot + (slot - Double(barWidth)) / 2)
            let length = Int((Double(abs(bar.value)) / span * Double(plot)).rounded())
            let y = bar.value >= 0 ? axis - length : axis
            let fill = bar.value >= 0 ? "#0b57d0" : "#b3261e"
            shapes.append(
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(barWidth)\" height=\"\(length)\" fill=\"\(fill)\"><title>\(bar.label): \(written(bar.value))</title></rect>")
            if index % labelEvery == 0 {
                shapes.append(
                    "<text x=\"\(x + barWidth / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">\(bar.label)</text>")
            }
        }
        return """
            <svg class="chart" viewBox="0 0 \(width) \(height)" role="img" aria-label="Turnover in \(code) per period; the numbers are in the table">
            <line x1="\(left)" y1="\(axis)" x2="\(width - left)" y2="\(axis)" stroke="#8c959f" stroke-width="1"/>\(shapes)</svg>
            """
    }

    static func error(_ message: String) -> Markup { "<p class=\"notice error\" role=\"alert\">\(message)</p>" }

    private func screen(signed: ConsoleSignedIn, merchants: [Merchant], query: [String: String], body: Markup, status: HTTPResponse.Status) -> Response {
        let merchantOptions = Markup.joined(merchants.map { merchant in
            let selected: Markup = query["merchant"] == merchant.id ? " selected" : ""
            return "<option value=\"\(merchant.id)\"\(selected)>\(merchant.name)</option>"
        })
        let groupOptions = Markup.joined(StatisticsGrouping.allCases.map { grouping in
            let selected: Markup = (query["groupBy"] ?? "month") == grouping.rawValue ? " selected" : ""
            return "<option value=\"\(grouping.rawValue)\"\(selected)>\(grouping.rawValue)</option>"
        })
        let value = { (name: String) in String((query[name] ?? "").prefix(16)) }
        let content: Markup = """
            <form class="search" method="get" action="/console/statistics">
            <div><label for="merchant">Merchant</label><select id="merchant" name="merchant">\(merchantOptions)</select></div>
            <div><label for="groupBy">Per</label><select id="groupBy" name="groupBy">\(groupOptions)</select></div>
            <div><label for="from">From</label><input type="date" id="from" name="from" value="\(value("from"))"></div>
            <div><label for="to">To</label><input type="date" id="to" name="to" value="\(value("to"))"></div>
            <div><label for="currency">Currency</label><input type="text" id="currency" name="currency" value="\(value("currency"))" maxlength="3" autocomplete="off"></div>
            <button type="submit">Show</button></form>
            \(body)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "statistics", title: "Statistics", account: signed.account, csrf: signed.csrf, content: content), status: status)
    }
}
