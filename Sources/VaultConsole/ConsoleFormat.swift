import Foundation
public import Vault

/// How the console writes amounts and instants: an amount in its currency's own format (`$246,800.00`,
/// `¥5,000`, `€12.50`), an instant in the merchant's time zone with the zone named.
public enum ConsoleFormat {
    /// `minorUnits` of `currency` as a person reads it.
    public static func amount(_ minorUnits: Int64, _ currency: Currency) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US")
        formatter.numberStyle = .currency
        formatter.currencyCode = currency.code
        formatter.minimumFractionDigits = currency.minorUnitExponent
        formatter.maximumFractionDigits = currency.minorUnitExponent
        var value = Decimal(minorUnits)
        for _ in 0..<currency.minorUnitExponent { value /= 10 }
        return formatter.string(from: value as NSDecimalNumber) ?? "\(Money(minorUnits: minorUnits, currency: currency).decimalString) \(currency.code)"
    }

    /// `instant` in `zone`, to the second, followed by the zone's name.
    static func instant(_ instant: Date, zone: TimeZone, zoneName: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return "\(formatter.string(from: instant)) \(zoneName)"
    }

    /// The minor units of an amount typed in major units (`12.50`, `12`, `5000`), or nil when it is
    /// not a positive amount with at most the currency's decimals.
    static func minorUnits(typed text: String, _ currency: Currency) -> Int64? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, (1...12).contains(whole.count), whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= currency.minorUnitExponent, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
              parts.count == 1 || !fraction.isEmpty
        else { return nil }
        let padded = String(fraction) + String(repeating: "0", count: currency.minorUnitExponent - fraction.count)
        guard let value = Int64(String(whole) + padded), value > 0 else { return nil }
        return value
    }
}
