import Foundation
import Testing
@testable import Vault

@Suite struct CurrencyTests {
    @Test("minor-unit exponents", arguments: [
        ("JPY", 0), ("VND", 0), ("KRW", 0), ("CLP", 0), ("ISK", 0), ("XOF", 0), ("USD", 2), ("EUR", 2), ("RUB", 2),
        ("GBP", 2), ("CHF", 2), ("HUF", 2), ("XCG", 2), ("ZWG", 2), ("BHD", 3), ("KWD", 3), ("OMR", 3), ("JOD", 3),
        ("TND", 3), ("LYD", 3), ("IQD", 3),
    ])
    func exponents(code: String, exponent: Int) throws {
        let currency = try Currency(code: code)
        #expect(currency.code == code)
        #expect(currency.minorUnitExponent == exponent)
    }

    @Test("unknown, lowercase, non-currency and withdrawn codes are unknown_currency", arguments: [
        "XXX", "XTS", "XAU", "XDR", "CLF", "BOV", "HRK", "ZWL", "usd", "Usd", "US", "USDD", "", "U$D", "ＵＳＤ",
    ])
    func unknown(code: String) {
        expectCardDataError(field: "currency", code: "unknown_currency") { () throws(CardDataError) in
            try Currency(code: code)
        }
    }

    @Test("a lowercase code gets a hint about case")
    func lowercaseHint() {
        let error = expectCardDataError(field: "currency", code: "unknown_currency") { () throws(CardDataError) in
            try Currency(code: "usd")
        }
        #expect(error?.message.contains("upper case") == true)
    }

    @Test("the table covers every active currency with a sane exponent")
    func table() {
        let all = Currency.all
        #expect(all.count == 157)
        #expect(all.allSatisfy { [0, 2, 3].contains($0.minorUnitExponent) })
        #expect(all.map(\.code) == all.map(\.code).sorted())
    }

    @Test("JSON is the code as a string, and decoding validates")
    func codable() throws {
        let data = try JSONEncoder().encode(try Currency(code: "KWD"))
        #expect(String(decoding: data, as: UTF8.self) == #""KWD""#)
        #expect(try JSONDecoder().decode(Currency.self, from: data).minorUnitExponent == 3)
        #expect(throws: CardDataError.self) {
            try JSONDecoder().decode(Currency.self, from: Data(#""XXX""#.utf8))
        }
    }
}
