import Foundation
import Payments
import Scheduler
import Vault
import VaultAPI

/// A request body, decoded with `JSONDecoder` as every JSON request type of the API and then taken
/// as far as the server takes it before storage: card capture, customer and custom-field
/// validation, plan validation and expansion.
///
/// Beyond not crashing: an accepted card is well formed, no capture error quotes digits of the card
/// data, and an expanded plan's steps are in order and within their limit.
public enum JSONRequestFuzzTarget {
    /// The body of `JSONRequestFuzzer`: throws a ``FuzzFinding`` when `bytes` break a property.
    public static func run(_ bytes: [UInt8]) throws {
        let body = Data(bytes)
        let decoder = JSONDecoder()

        if let registration = try? decoder.decode(SecureCardRegistrationRequest.self, from: body).registration {
            _ = try? MerchantReference(validating: registration.merchantReference)
            try capture(registration.source)
            _ = try? registration.customer?.normalized().validate()
            if let fields = registration.customFields {
                _ = try? CustomFieldValidation.validate(fields, against: RequestRules.customFields)
            }
        }
        if let update = try? decoder.decode(SecureCardUpdateRequest.self, from: body).update, update.source.isPresent {
            try capture(update.source)
            if case .set(let customer) = update.customer { _ = try? customer.applied(to: nil)?.normalized().validate() }
        }
        if let transaction = try? decoder.decode(TransactionRequest.self, from: body) {
            if transaction.source.isPresent { try capture(transaction.source) }
            if let code = transaction.currency { _ = try? Currency(code: code) }
        }
        if let schedule = try? decoder.decode(ScheduleRequest.self, from: body).schedule {
            if let code = schedule.currency { _ = try? Currency(code: code) }
            try expand(schedule.plan)
        }
        _ = try? decoder.decode(ScheduleChangeRequest.self, from: body)
        _ = try? decoder.decode(FollowUpAmount.self, from: body)
        if let definitions = try? decoder.decode(CustomFieldDefinitions.self, from: body) {
            _ = try? CustomFieldDefinition.validateDefinitions(definitions.fields)
        }
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
