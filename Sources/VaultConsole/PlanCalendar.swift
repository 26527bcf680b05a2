import Scheduler
import Vault

/// A plan's steps drawn as month calendars: one HTML table per month from the first step's month
/// (at most ``maximumMonths``), weeks starting on Sunday, each due day marked with its amount, so
/// the preview reads like a wall calendar with no script and no image. The list beside it carries
/// every step in words, so nothing depends on seeing the grid.
enum PlanCalendar {
    /// Months drawn; a longer plan's later steps are in the list only.
    static let maximumMonths = 12

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]
    static let weekdays = [("Sun", "Sunday"), ("Mon", "Monday"), ("Tue", "Tuesday"), ("Wed", "Wednesday"), ("Thu", "Thursday"), ("Fri", "Friday"), ("Sat", "Saturday")]

    /// The calendars of `steps` (in date order).
    static func months(_ steps: [ScheduleStep]) -> Markup {
        guard let first = steps.first?.date, let last = steps.last?.date,
              var month = CivilDate(year: first.year, month: first.month, day: 1)
        else { return "" }
        var due: [CivilDate: ScheduleStep] = [:]
        for step in steps { due[step.date] = step }
        var tables: [Markup] = []
        while month <= last && tables.count < maximumMonths {
            tables.append(table(month: month, due: due))
            month = month.adding(months: 1)
        }
        return "<div class=\"calendars\">\(tables)</div>"
    }

    /// One month: `month` is its first day.
    static func table(month: CivilDate, due: [CivilDate: ScheduleStep]) -> Markup {
        let next = month.adding(months: 1)
        let length = next.adding(days: -1).day
        var cells: [Markup] = Array(repeating: "<td></td>", count: month.weekday)
        for day in 1...length {
            let date = month.adding(days: day - 1)
            if let step = due[date] {
                let amount = ConsoleFormat.amount(step.amount, step.currency)
                cells.append(
                    "<td class=\"due\" data-date=\"\(date.iso)\"><span class=\"day\">\(day)</span><span class=\"visually-hidden\"> due</span> <span class=\"due-amount\">\(amount)</span></td>")
            } else {
                cells.append("<td><span class=\"day\">\(day)</span></td>")
            }
        }
        while cells.count % 7 != 0 { cells.append("<td></td>") }
        var rows: [Markup] = []
        for start in stride(from: 0, to: cells.count, by: 7) { rows.append("<tr>\(Array(cells[start..<start + 7]))</tr>") }
        let head = weekdays.map { short, long -> Markup in "<th scope=\"col\"><abbr title=\"\(long)\">\(short)</abbr></th>" }
        return """
            <table class="calendar"><caption>\(monthNames[month.month - 1]) \(month.year)</caption>
            <thead><tr>\(head)</tr></thead><tbody>\(rows)</tbody></table>
            """
    }
}
