import Vault

/// An amount in minor units written as money for people (the run summary's table and log lines):
/// `$246,800.00`, `¥5,000`, `KWD 1,000.500`, with the currency's own minor-unit exponent.
///
/// The currencies with a symbol of their own that no other currency shares in print (USD `$`, EUR
/// `€`, GBP `£`, JPY `¥`) are written with it; every other one with its ISO code before the amount,
/// so a Canadian dollar is never read as a US one. A code the vault does not know keeps the raw
/// form `<minor units> <code>`: nothing is guessed.
enum MoneyText {
    private static let symbols = ["USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"]

    /// `minorUnits` of `code` as money text.
    static func format(_ minorUnits: Int64, code: String) -> String {
        guard let currency = try? Currency(code: code) else { return "\(minorUnits) \(code)" }
        let negative = minorUnits < 0
        let magnitude = minorUnits.magnitude
        let exponent = currency.minorUnitExponent
        var divisor: UInt64 = 1
        for _ in 0..<exponent { divisor *= 10 }
        let whole = grouped(magnitude / divisor)
        var number = whole
        if exponent > 0 {
            let fraction = String(magnitude % divisor)
            number += "." + String(repeating: "0", count: exponent - fraction.count) + fraction
        }
        let amount = symbols[code].map { $0 + number } ?? "\(code) \(number)"
        return negative ? "-" + amount : amount
    }

    /// Digits in groups of three separated by commas.
    private static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
