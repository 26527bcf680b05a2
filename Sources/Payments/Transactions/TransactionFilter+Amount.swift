public import Vault

extension TransactionFilter {
    /// The amounts a search text written as money means (a search by amount): `19.99` is
    /// 1999 minor units of every two-decimal currency and 19990 of every three-decimal one; `20`
    /// is 20 yen, 2000 cents and 20000 fils. A text with more decimals than a currency has never
    /// matches that currency. Empty when the text is not a plain decimal amount (digits, at most
    /// one `.` followed by 1-3 digits, at most 15 digits before it).
    /// - Parameter currency: When the search names a currency, only its reading.
    public static func amountReadings(of text: String, currency: Currency?) -> [(minorUnits: Int64, currencies: [String])] {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, (1...15).contains(whole.count),
            whole.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return [] }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || ((1...3).contains(fraction.count) && fraction.utf8.allSatisfy({ (0x30...0x39).contains($0) })) else {
            return []
        }
        let currencies = currency.map { [$0] } ?? Currency.all
        var byExponent: [Int: [String]] = [:]
        for candidate in currencies where candidate.minorUnitExponent >= fraction.count {
            byExponent[candidate.minorUnitExponent, default: []].append(candidate.code)
        }
        return byExponent.keys.sorted().compactMap { exponent in
            let padded = String(fraction) + String(repeating: "0", count: exponent - fraction.count)
            guard let minor = Int64(String(whole) + padded) else { return nil }
            return (minor, byExponent[exponent] ?? [])
        }
    }
}
