import Foundation
import Hummingbird
import Vault

/// Reading typed query parameters, each a 422 naming the parameter when malformed.
enum QueryParameter {
    /// The latest local date a range may name: one day is added to `to` to find its end, and instants
    /// stay four-digit years so their text sorts in time order.
    static let latestDate = CivilDate(year: 9998, month: 12, day: 31)!

    /// A `yyyy-MM-dd` date.
    static func date(_ name: String, in parameters: Parameters) throws -> CivilDate? {
        guard let text = parameters[name[...]] else { return nil }
        guard let date = CivilDate(iso: String(text)), date <= latestDate else {
            throw APIError.invalid("\(name) must be a date, yyyy-MM-dd (at most 9998-12-31).", code: "invalid_date", param: name)
        }
        return date
    }

    /// An RFC 3339 instant (`2027-03-31T23:30:00Z`, fractional seconds and numeric offsets allowed).
    static func instant(_ name: String, in parameters: Parameters) throws -> Date? {
        guard let text = parameters[name[...]] else { return nil }
        guard let instant = Timestamp.parse(String(text)) else {
            throw APIError.invalid("\(name) must be an RFC 3339 instant, e.g. 2027-03-31T23:30:00Z.", code: "invalid_format", param: name)
        }
        return instant
    }

    /// A non-negative amount in minor units.
    static func amount(_ name: String, in parameters: Parameters) throws -> Int64? {
        guard let text = parameters[name[...]] else { return nil }
        guard let value = Int64(String(text)), value >= 0 else {
            throw APIError.invalid("\(name) must be a whole number of minor units, 0 or more.", code: "invalid_amount", param: name)
        }
        return value
    }

    /// An upper-case ISO 4217 code.
    static func currency(_ name: String, in parameters: Parameters) throws -> Currency? {
        guard let text = parameters[name[...]] else { return nil }
        do {
            return try Currency(code: String(text))
        } catch {
            throw APIError.invalid("\(name) must be an upper-case ISO 4217 currency code.", code: "unknown_currency", param: name)
        }
    }

    /// Free text of 1 to `maximumLength` characters; an empty value counts as absent.
    static func text(_ name: String, in parameters: Parameters, maximumLength: Int = 200) throws -> String? {
        guard let text = parameters[name[...]], !text.isEmpty else { return nil }
        guard text.count <= maximumLength else {
            throw APIError.invalid("\(name) must be at most \(maximumLength) characters.", code: "too_long", param: name)
        }
        return String(text)
    }
}
