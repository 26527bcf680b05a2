import Foundation
import Payments
import Scheduler
import Vault
import VaultAPI

/// A request body, decoded as every JSON request type of the API by the server's own body path
/// (`JSONCoding.decode`: one parse, the OpenAPI contract checked on the tree, decoded from the tree)
/// and then taken as far as the server takes it before storage: card capture, customer and
/// custom-field validation, plan validation and expansion.
///
/// Beyond not crashing or hanging: a body the path accepts is one `JSONDecoder` accepts too, decoded
/// to the same value (the one exception: a body with a number written with a fraction or an
/// exponent, such as `9223372036854775.806e3`, which the path reads exactly and `JSONDecoder`
/// did not); an accepted card is well formed,
/// no capture error quotes digits of the card data, and an expanded plan's steps are in order and
/// within their limit.
public enum JSONRequestFuzzTarget {
    /// The body of `JSONRequestFuzzer`: throws a ``FuzzFinding`` when `bytes` break a property.
    public static func run(_ bytes: [UInt8]) throws {
        if let registration = try decoded(SecureCardRegistrationRequest.self, bytes, "POST", "/v1/secure-cards")?.registration {
            _ = try? MerchantReference(validating: registration.merchantReference)
            try capture(registration.source)
            _ = try? registration.customer?.normalized().validate()
            if let fields = registration.customFields {
                _ = try? CustomFieldValidation.validate(fields, against: RequestRules.customFields)
            }
        }
        if let update = try decoded(SecureCardUpdateRequest.self, bytes, "PATCH", "/v1/secure-cards/cust-1")?.update, update.source.isPresent {
            try capture(update.source)
            if case .set(let customer) = update.customer { _ = try? customer.applied(to: nil)?.normalized().validate() }
        }
        if let transaction = try decoded(TransactionRequest.self, bytes, "POST", "/v1/transactions") {
            if transaction.source.isPresent { try capture(transaction.source) }
            if let code = transaction.currency { _ = try? Currency(code: code) }
        }
        if let schedule = try decoded(ScheduleRequest.self, bytes, "POST", "/v1/schedules")?.schedule {
            if let code = schedule.currency { _ = try? Currency(code: code) }
            try expand(schedule.plan)
        }
        _ = try decoded(ScheduleChangeRequest.self, bytes, "PATCH", "/v1/schedules/sch_1")
        _ = try decoded(FollowUpAmount.self, bytes, "POST", "/v1/transactions/txn_1/refund")
        if let definitions = try decoded(CustomFieldDefinitions.self, bytes, "PUT", "/v1/custom-fields") {
            _ = try? CustomFieldDefinition.validateDefinitions(definitions.fields)
        }
    }

    /// `bytes` decoded as `type` by the server's body path for the operation at `method` and `path`,
    /// nil when the path refuses them; throws when it accepts what `JSONDecoder` refuses or reads
    /// something else.
    static func decoded<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], _ method: String, _ path: String) throws -> T? {
        guard let value = try? JSONCoding.decode(T.self, body: bytes, method: method, path: path) else { return nil }
        let reference: T?
        do {
            reference = try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            // JSONDecoder read a number with a fraction or an exponent through a Double or gave up
            // on it (`9223372036854775.806e3`), where the path reads it exactly; any other refusal
            // is one the path must share.
            guard writesFractionOrExponent(bytes) else {
                throw FuzzFinding("the body path accepted a \(T.self) that JSONDecoder refuses")
            }
            reference = nil
        }
        if let reference, String(reflecting: reference) != String(reflecting: value) {
            throw FuzzFinding("the body path decoded \(T.self) to another value than JSONDecoder")
        }
        return value
    }

    /// Whether `bytes` write a number (outside strings) with a fraction or an exponent.
    static func writesFractionOrExponent(_ bytes: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        var inNumber = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                inNumber = false
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                inNumber = true
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                if inNumber { return true }
            case UInt8(ascii: "+"):
                break
            default:
                inNumber = false
            }
        }
        return false
    }

    /// Captures the card data of a request, checking the result and the error.
    static func capture(_ source: CardSource) throws {
        let card: CapturedCard
        do {
            card = try source.capture()
        } catch {
            let input = source.card
            try FuzzOracle.expectNoCardData(in: error, from: [input?.number, input?.cvv, input?.expiryDate, source.track, source.emv])
            return
        }
        try FuzzOracle.expectWellFormed(card)
    }

    /// Validates and expands a plan the way `POST /v1/schedules` does, with a fixed "today".
    static func expand(_ terms: PlanTerms) throws {
        guard let plan = try? Plan(validating: terms, rules: RequestRules.plans) else { return }
        let horizon = RequestRules.today.adding(days: RequestRules.horizonDays)
        let limit = plan.end == .never ? RequestRules.horizonDays * 2 + 10 : RequestRules.plans.maxCount
        let steps = plan.steps(horizon: horizon, limit: limit)
        guard steps.count <= limit else { throw FuzzFinding("a plan expanded past its step limit") }
        for (earlier, later) in zip(steps, steps.dropFirst()) where !(earlier.date < later.date && earlier.sequence < later.sequence) {
            throw FuzzFinding("a plan's steps are not in strictly increasing date order")
        }
    }

    /// `PUT /v1/custom-fields`.
    struct CustomFieldDefinitions: Decodable {
        var fields: [CustomFieldDefinition]
    }

    /// The fixed merchant settings requests are validated against.
    enum RequestRules {
        static let today = CivilDate(year: 2026, month: 6, day: 15)!
        static let horizonDays = 400
        static let plans = PlanRules(defaultTimeZone: TimeZone(identifier: "UTC")!, maxCount: 1000, today: today)
        static let customFields = [
            CustomFieldDefinition(name: "customerNumber", required: true, maxLength: 20),
            CustomFieldDefinition(name: "note", maxLength: 200),
        ]
    }
}
