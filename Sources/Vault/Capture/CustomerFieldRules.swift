/// The shape rules behind ``Customer/validate()``, one function per kind of field.
public enum CustomerFieldRules {
    /// Longest e-mail address (RFC 5321 path limit less the angle brackets).
    public static let maximumEmailLength = 254

    /// Validates an e-mail address's shape; see ``Customer/validate()``.
    public static func validateEmail(_ email: String, field: String) throws(CardDataError) {
        let bytes = Array(email.utf8.prefix(maximumEmailLength + 1))
        guard bytes.count <= maximumEmailLength else {
            throw CardDataError(field: field, code: CardDataError.Code.tooLong,
                                message: "The e-mail address must be at most \(maximumEmailLength) characters.")
        }
        guard isEmailShape(bytes) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The e-mail address is not of the form name@example.com.")
        }
    }

    /// Validates an E.164-ish phone number; see ``Customer/validate()``.
    public static func validatePhone(_ phone: String, field: String) throws(CardDataError) {
        let bytes = Array(phone.utf8.prefix(33))
        guard bytes.count <= 32, isPhoneShape(bytes) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The mobile number must be 7 to 15 digits, optionally starting with +.")
        }
    }

    /// Validates a city or region: 1-100 characters without control characters.
    public static func validatePlace(_ place: String, field: String) throws(CardDataError) {
        guard place.count <= Customer.maximumPlaceLength else {
            throw CardDataError(field: field, code: CardDataError.Code.tooLong,
                                message: "The value must be at most \(Customer.maximumPlaceLength) characters.")
        }
        guard !place.trimmedWhitespace.isEmpty else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat, message: "The value is blank.")
        }
        guard !place.containsControlCharacters else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The value contains control characters.")
        }
    }

    /// Validates an upper-case ISO 3166-1 alpha-2 country code.
    public static func validateCountry(_ country: String, field: String) throws(CardDataError) {
        guard CountryCode.isAssigned(country) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The country must be an assigned ISO 3166-1 alpha-2 code in upper case, e.g. GB.")
        }
    }

    /// Validates an IPv4 or IPv6 address with `inet_pton`.
    public static func validateIPAddress(_ address: String, field: String) throws(CardDataError) {
        guard IPAddress.isValid(address) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The IP address is not a valid IPv4 or IPv6 address.")
        }
    }

    static func isEmailShape(_ bytes: [UInt8]) -> Bool {
        guard let at = bytes.firstIndex(of: 0x40), bytes.lastIndex(of: 0x40) == at else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        return isLocalPart(local) && isDomain(domain)
    }

    private static let localSpecials = Set("!#$%&'*+/=?^_`{|}~-".utf8)

    private static func isLocalPart(_ local: ArraySlice<UInt8>) -> Bool {
        guard (1...64).contains(local.count), local.first != 0x2E, local.last != 0x2E else { return false }
        var previousDot = false
        for byte in local {
            let isDot = byte == 0x2E
            if isDot && previousDot { return false }
            guard isDot || isAlphanumeric(byte) || localSpecials.contains(byte) else { return false }
            previousDot = isDot
        }
        return true
    }

    private static func isDomain(_ domain: ArraySlice<UInt8>) -> Bool {
        guard (1...253).contains(domain.count) else { return false }
        let labels = domain.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, !top.allSatisfy(ASCII.isDigit) else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != ASCII.dash && label.last != ASCII.dash
                && label.allSatisfy { isAlphanumeric($0) || $0 == ASCII.dash }
        }
    }

    static func isPhoneShape(_ bytes: [UInt8]) -> Bool {
        var digits: [UInt8] = []
        var sawPlus = false
        for (offset, byte) in bytes.enumerated() {
            switch byte {
            case 0x2B where offset == 0: sawPlus = true
            case ASCII.zero...ASCII.nine: digits.append(byte)
            case ASCII.space, ASCII.dash, 0x2E, 0x28, 0x29: continue
            default: return false
            }
        }
        guard (7...15).contains(digits.count) else { return false }
        return !(sawPlus && digits.first == ASCII.zero)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        ASCII.isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
