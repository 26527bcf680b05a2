/// Reads a JSON number's literal text exactly, for integer fields (amounts in minor units).
enum JSONNumberLiteral {
    /// The integer `text` stands for, or nil when it is not a whole number or `T` cannot hold it.
    ///
    /// Exact, never through a `Double`: `100.0`, `1e2` and `0.1e3` are 100, `-0` is 0,
    /// `9007199254740993` stays itself, and `1.00000000000000000001` and `1e-400` are not whole.
    /// `text` follows the JSON grammar (the parser checked it).
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ text: String) -> T? {
        // The usual amount, digits only: the standard library's parser, no allocation.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            return T(text, radix: 10)
        }
        var utf8 = text.utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        var digits: [UInt8] = []
        var exponent = 0
        var afterPoint = false
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits.isEmpty && byte == UInt8(ascii: "0") {
                    // A leading zero adds nothing (but still moves the point).
                } else {
                    digits.append(byte - UInt8(ascii: "0"))
                }
                if afterPoint { exponent -= 1 }
            case UInt8(ascii: "."):
                afterPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                var rest = ""
                while let next = iterator.next() { rest.unicodeScalars.append(Unicode.Scalar(next)) }
                // An exponent this large is out of every integer's range (or makes a zero of zeros).
                guard let given = Int(rest), given.magnitude < 10_000 else { return digits.isEmpty ? 0 : nil }
                exponent += given
            default:
                return nil
            }
        }
        // Trailing zeros of the digits move into the exponent: 1.500e3 is 15e2.
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        guard !digits.isEmpty else { return 0 }
        guard exponent >= 0, digits.count + exponent <= 40 else { return nil }
        var value: T = 0
        for digit in digits + repeatElement(0, count: exponent) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (next, carry) = negative ? shifted.subtractingReportingOverflow(T(digit)) : shifted.addingReportingOverflow(T(digit))
            guard !carry else { return nil }
            value = next
        }
        return value
    }
}
