import Testing
import Vault
@testable import Payments

@Suite struct TransactionAmountSearchTests {
    static func readings(_ text: String, _ currency: String? = nil) -> [Int64: Set<String>] {
        var found: [Int64: Set<String>] = [:]
        for reading in TransactionFilter.amountReadings(of: text, currency: currency.flatMap { try? Currency(code: $0) }) {
            found[reading.minorUnits, default: []].formUnion(reading.currencies)
        }
        return found
    }

    @Test func anAmountIsReadInEveryCurrencyByItsExponent() {
        let found = Self.readings("19.99")
        #expect(found[1999]?.isSuperset(of: ["USD", "EUR", "RUB"]) == true)
        #expect(found[19990]?.isSuperset(of: ["KWD", "BHD"]) == true)
        #expect(found.values.allSatisfy { !$0.contains("JPY") })
        let whole = Self.readings("20")
        #expect(whole[20]?.contains("JPY") == true)
        #expect(whole[2000]?.contains("USD") == true)
        #expect(whole[20000]?.contains("KWD") == true)
        #expect(Self.readings("19.99", "USD") == [1999: ["USD"]])
        #expect(Self.readings("19.9", "USD") == [1990: ["USD"]])
        #expect(Self.readings("19.99", "JPY").isEmpty)
    }

    @Test(arguments: ["", "abc", "19,99", "19.", ".5", "1.2.3", "19.9999", "-5", "+5", "1e3", "１２", String(repeating: "9", count: 16)])
    func textThatIsNotAPlainAmountReadsAsNone(text: String) {
        #expect(TransactionFilter.amountReadings(of: text, currency: nil).isEmpty)
    }
}
