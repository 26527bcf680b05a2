/// The Luhn (mod 10) check digit scheme of ISO/IEC 7812-1, used by every card brand.
public enum Luhn {
    /// `true` when `digits` is non-empty, all ASCII digits, and its last digit is a correct check digit.
    public static func isValid(_ digits: String) -> Bool {
        isValid(bytes: Array(digits.utf8))
    }

    /// The check digit (`0`-`9`) that makes `payload + digit` Luhn-valid, or `nil` if `payload` is not all digits.
    public static func checkDigit(for payload: String) -> Character? {
        let bytes = Array(payload.utf8)
        guard bytes.allSatisfy(ASCII.isDigit) else { return nil }
        let sum = weightedSum(bytes, doubleFirstFromRight: true)
        let digit = (10 - sum % 10) % 10
        return Character(Unicode.Scalar(UInt8(digit) &+ ASCII.zero))
    }

    /// `true` when the ASCII digit bytes pass the check; `false` for empty or non-digit input.
    static func isValid(bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, bytes.allSatisfy(ASCII.isDigit) else { return false }
        return weightedSum(bytes, doubleFirstFromRight: false) % 10 == 0
    }

    /// Sum of the digits from the right, doubling every second one (the first one when the
    /// check digit is still to be appended), folding two-digit products.
    private static func weightedSum(_ bytes: [UInt8], doubleFirstFromRight: Bool) -> Int {
        var sum = 0
        var double = doubleFirstFromRight
        for byte in bytes.reversed() {
            var value = Int(byte &- ASCII.zero)
            if double {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
            double.toggle()
        }
        return sum
    }
}
