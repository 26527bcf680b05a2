public import Vault

/// A property of the code under test that an input broke (beyond crashing): libFuzzer cannot see
/// these by itself. The description names the property, never the input (the saved artifact has it).
public struct FuzzFinding: Error, Equatable, CustomStringConvertible {
    /// The broken property, e.g. "an accepted PAN fails the Luhn check".
    public let property: String

    /// A finding of `property`.
    public init(_ property: String) {
        self.property = property
    }

    /// The broken property.
    public var description: String { property }
}

/// The checks a fuzz target makes beyond "no crash".
///
/// Each check throws a ``FuzzFinding``; the libFuzzer entry points (``FuzzEntry``) turn it into a
/// crash so libFuzzer saves the input, and the seed-corpus tests report it as a test failure.
public enum FuzzOracle {
    /// Shortest run of digits treated as card data when it shows up in an error message.
    public static let secretDigitRun = 6

    /// Throws when `error` quotes card data: a run of ``secretDigitRun`` or more digits in its
    /// message or description that also occurs among the digits of any of `inputs` (an error
    /// message never carries a PAN or CVV).
    public static func expectNoCardData(in error: CardDataError, from inputs: [String?]) throws {
        let inputDigits = inputs.compactMap { $0 }.map { String($0.unicodeScalars.filter { $0.isASCIIDigit }.map(Character.init)) }
        for text in [error.message, error.description] {
            for run in digitRuns(in: text) where inputDigits.contains(where: { $0.contains(run) }) {
                throw FuzzFinding("the error message on \(error.field) (\(error.code)) quotes \(run.count) digits of the input")
            }
        }
    }

    /// Throws when an accepted card breaks what every later step relies on: a Luhn-valid PAN of
    /// 12-19 ASCII digits, descriptions that never show the whole PAN, a real expiry month and year,
    /// a three-digit service code when there is one, and no blank holder name.
    public static func expectWellFormed(_ card: CapturedCard) throws {
        let digits = card.pan.digits
        guard (PrimaryAccountNumber.minimumLength...PrimaryAccountNumber.maximumLength).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { throw FuzzFinding("an accepted PAN is not 12-19 ASCII digits") }
        guard Luhn.isValid(digits) else { throw FuzzFinding("an accepted PAN fails the Luhn check") }
        guard !card.pan.masked.contains(digits), !card.pan.description.contains(digits), !card.pan.debugDescription.contains(digits)
        else { throw FuzzFinding("a description of an accepted PAN shows the whole PAN") }
        // A holder name may itself hold digits (track 1 allows them); only the PAN must not show.
        if card.holderName?.contains(digits) != true, String(describing: card).contains(digits) || String(reflecting: card).contains(digits) {
            throw FuzzFinding("a description of an accepted card shows the whole PAN")
        }
        guard (1...12).contains(card.expiry.month), CardExpiry.validYears.contains(card.expiry.year) else {
            throw FuzzFinding("an accepted expiry is not a real month")
        }
        if let serviceCode = card.serviceCode {
            guard serviceCode.utf8.count == 3, serviceCode.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw FuzzFinding("an accepted service code is not three digits")
            }
        }
        if let name = card.holderName {
            guard !name.allSatisfy(\.isWhitespace) else { throw FuzzFinding("an accepted holder name is blank") }
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
