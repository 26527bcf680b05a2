import Foundation
@testable import Scheduler
import Testing

/// The run summary writes money as money, with each currency's minor-unit exponent, never as a
/// count of minor units.
@Suite struct ChargeRunSummaryMoneyTests {
    @Test(arguments: [
        (Int64(24_680_000), "USD", "$246,800.00"), (5_000, "JPY", "¥5,000"), (1_000_500, "KWD", "KWD 1,000.500"),
        (7, "EUR", "€0.07"), (123_456, "CAD", "CAD 1,234.56"), (0, "GBP", "£0.00"), (-250, "USD", "-$2.50"),
        (100, "QQQ", "100 QQQ"),
    ])
    func anAmountIsWrittenWithItsCurrencysExponent(_ minorUnits: Int64, _ code: String, _ text: String) {
        #expect(MoneyText.format(minorUnits, code: code) == text)
    }

    @Test func theTableShowsTotalsAsMoney() {
        var summary = ChargeRunSummary(runId: "run_1", asOf: Date(timeIntervalSince1970: 0), dryRun: false)
        summary.record(.approved, amount: 24_680_000, currency: "USD")
        summary.record(.approved, amount: 5_000, currency: "JPY")
        #expect(summary.table.contains("¥5,000, $246,800.00"), "\(summary.table)")
        #expect(!summary.table.contains("24680000"))
    }
}
