import Foundation
import Testing
@testable import Vault

@Suite struct MoneyTests {
    @Test("formatting from integers", arguments: [
        (1234, "USD", "12.34 USD"), (1000, "JPY", "1000 JPY"), (1234, "KWD", "1.234 KWD"), (5, "EUR", "0.05 EUR"),
        (0, "USD", "0.00 USD"), (0, "JPY", "0 JPY"), (7, "BHD", "0.007 BHD"), (-5, "EUR", "-0.05 EUR"),
        (-123456, "GBP", "-1234.56 GBP"), (100, "USD", "1.00 USD"), (-1, "JPY", "-1 JPY"),
        (Int64.max, "USD", "92233720368547758.07 USD"), (Int64.min, "KWD", "-9223372036854775.808 KWD"),
    ])
    func formatting(minorUnits: Int64, code: String, expected: String) throws {
        let money = Money(minorUnits: minorUnits, currency: try Currency(code: code))
        #expect(money.formatted() == expected)
        #expect(money.description == expected)
    }

    @Test("JSON round trip")
    func codable() throws {
        let money = Money(minorUnits: 1999, currency: try Currency(code: "EUR"))
        let data = try JSONEncoder().encode(money)
        #expect(try JSONDecoder().decode(Money.self, from: data) == money)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(json?["currency"] as? String == "EUR")
        #expect(json?["minorUnits"] as? Int == 1999)
    }
}
