public import Vault

/// The checks a fuzzer makes beyond "no crash": properties libFuzzer cannot see by itself.
///
/// A broken property stops the process with `fatalError`, which libFuzzer records as a crash and
/// saves the input as an artifact. The stop message never quotes the input: the artifact has it.
public enum FuzzOracle {
    /// Shortest run of digits treated as card data when it shows up in an error message.
    public static let secretDigitRun = 6

    /// Stops when `error` quotes card data: a run of ``secretDigitRun`` or more digits in its
    /// message or description that also occurs among the digits of any of `inputs` (never a
    /// PAN or CVV in a message).
    public static func expectNoCardData(in error: CardDataError, from inputs: [String?]) {
        let inputDigits = inputs.compactMap { $0 }.map { String($0.unicodeScalars.filter { $0.isASCIIDigit }.map(Character.init)) }
        for text in [error.message, error.description] {
            for run in digitRuns(in: text) where inputDigits.contains(where: { $0.contains(run) }) {
                fatalError("the error message on \(error.field) (\(error.code)) quotes \(run.count) digits of the input")
            }
        }
    }

    /// Stops when an accepted card breaks what every later step relies on: a Luhn-valid PAN of
    /// 12-19 ASCII digits, descriptions that never show the whole PAN, a real expiry month and year,
    /// a three-digit service code when there is one, and no blank holder name.
    public static func expectWellFormed(_ card: CapturedCard) {
        let digits = card.pan.digits
        guard (PrimaryAccountNumber.minimumLength...PrimaryAccountNumber.maximumLength).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { fatalError("an accepted PAN is not 12-19 ASCII digits") }
        guard Luhn.isValid(digits) else { fatalError("an accepted PAN fails the Luhn check") }
        guard !card.pan.masked.contains(digits), !card.pan.description.contains(digits), !card.pan.debugDescription.contains(digits)
        else { fatalError("a description of an accepted PAN shows the whole PAN") }
        // A holder name may itself hold digits (track 1 allows them); only the PAN must not show.
        if card.holderName?.contains(digits) != true, String(describing: card).contains(digits) || String(reflecting: card).contains(digits) {
            fatalError("a description of an accepted card shows the whole PAN")
        }
        guard (1...12).contains(card.expiry.month), CardExpiry.validYears.contains(card.expiry.year) else {
            fatalError("an accepted expiry is not a real month")
        }
        if let serviceCode = card.serviceCode {
            guard serviceCode.utf8.count == 3, serviceCode.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                fatalError("an accepted service code is not three digits")
            }
        }
        if let name = card.holderName {
            guard !name.allSatisfy(\.isWhitespace) else { fatalError("an accepted holder name is blank") }
        }
    }

    /// Maximal runs of ASCII digits at least ``secretDigitRun`` long.
    static func digitRuns(in text: String) -> [String] {
        var runs: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCIIDigit {
                current.unicodeScalars.append(scalar)
                continue
            }
            if current.count >= secretDigitRun { runs.append(current) }
            current = ""
        }
        if current.count >= secretDigitRun { runs.append(current) }
        return runs
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { (0x30...0x39).contains(value) }
}
