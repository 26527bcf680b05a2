public import Foundation
public import Vault

/// A search filter that cannot be read: the parameter it names, a machine code and a message for people.
public struct TransactionFilterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The query parameter at fault (`status`, `from`, `maxAmount`, ...).
    public var parameter: String
    /// What is wrong: `invalid_value`, `invalid_date`, `invalid_range`, `invalid_amount`, `unknown_currency`, `too_long`.
    public var code: String
    /// The rule the value broke, naming the parameter.
    public var message: String

    public var description: String { message }
}

extension TransactionFilter {
    /// The latest local date a range may name: one day is added to `to` to find its end, and instants
    /// stay four-digit years so their text sorts in time order.
    public static let latestDate = CivilDate(year: 9998, month: 12, day: 31)!
    /// Longest free text a search takes.
    public static let maximumTextLength = 200

    /// The filter a transaction search's query names, read one way for every caller (`GET
    /// /v1/transactions` and the operator console): `status`, `type`, `scheduleId`,
    /// `secureCardReference`, `from` and `to` (local dates of the merchant's zone, both included),
    /// `minAmount` and `maxAmount` (minor units), `currency` and the free text `q` (empty counts as absent).
    /// - Throws: ``TransactionFilterError`` naming the first malformed parameter; nothing is searched.
    public init(query parameters: [String: String], zone: TimeZone) throws(TransactionFilterError) {
        self.init()
        if let text = parameters["status"] {
            guard let status = TransactionStatus(rawValue: text) else {
                throw TransactionFilterError(parameter: "status", code: "invalid_value", message: "status is not a transaction status.")
            }
            self.status = status
        }
        if let text = parameters["type"] {
            guard let type = TransactionType(rawValue: text) else {
                throw TransactionFilterError(parameter: "type", code: "invalid_value", message: "type is not a transaction type.")
            }
            self.type = type
        }
        scheduleID = parameters["scheduleId"]
        secureCardReference = parameters["secureCardReference"]
        let from = try Self.date("from", in: parameters)
        let to = try Self.date("to", in: parameters)
        if let from, let to, to < from {
            throw TransactionFilterError(parameter: "to", code: "invalid_range", message: "to must not be before from.")
        }
        if from != nil || to != nil {
            var resolver = DueInstantResolver(zone: zone)
            createdFrom = from.map { resolver.instant(of: $0, at: .midnight) }
            createdBefore = to.map { resolver.instant(of: $0.adding(days: 1), at: .midnight) }
        }
        minimumAmount = try Self.amount("minAmount", in: parameters)
        maximumAmount = try Self.amount("maxAmount", in: parameters)
        if let minimum = minimumAmount, let maximum = maximumAmount, maximum < minimum {
            throw TransactionFilterError(parameter: "maxAmount", code: "invalid_range", message: "maxAmount must not be below minAmount.")
        }
        if let code = parameters["currency"] {
            do {
                currency = try Currency(code: code)
            } catch {
                throw TransactionFilterError(
                    parameter: "currency", code: "unknown_currency", message: "currency must be an upper-case ISO 4217 currency code.")
            }
        }
        if let text = parameters["q"], !text.isEmpty {
            guard text.count <= Self.maximumTextLength else {
                throw TransactionFilterError(parameter: "q", code: "too_long", message: "q must be at most \(Self.maximumTextLength) characters.")
            }
            self.text = text
        }
    }

    private static func date(_ name: String, in parameters: [String: String]) throws(TransactionFilterError) -> CivilDate? {
        guard let text = parameters[name] else { return nil }
        guard let date = CivilDate(iso: text), date <= latestDate else {
            throw TransactionFilterError(parameter: name, code: "invalid_date", message: "\(name) must be a date, yyyy-MM-dd (at most 9998-12-31).")
        }
        return date
    }

    private static func amount(_ name: String, in parameters: [String: String]) throws(TransactionFilterError) -> Int64? {
        guard let text = parameters[name] else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw TransactionFilterError(parameter: name, code: "invalid_amount", message: "\(name) must be a whole number of minor units, 0 or more.")
        }
        return value
    }
}
