import Foundation
import FuzzSupport
import Scheduler
import Vault

/// libFuzzer entry: the input is a request body, decoded with `JSONDecoder` as every JSON request
/// type of the API and then taken as far as the server takes it before storage: card capture,
/// customer and custom-field validation, plan validation and expansion.
///
/// Beyond not crashing: an accepted card is well formed and no capture error quotes digits of the card data.
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonRequestFuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(FuzzInput(start, count).bytes)
    let decoder = JSONDecoder()

    if let registration = try? decoder.decode(SecureCardRegistration.self, from: body) {
        _ = try? MerchantReference(validating: registration.merchantReference)
        capture(registration.source)
        _ = try? registration.customer?.normalized().validate()
        if let fields = registration.customFields {
            _ = try? CustomFieldValidation.validate(fields, against: RequestRules.customFields)
        }
    }
    if let update = try? decoder.decode(SecureCardUpdate.self, from: body), update.source.isPresent {
        capture(update.source)
        if case .set(let customer) = update.customer { _ = try? customer.normalized().validate() }
    }
    if let transaction = try? decoder.decode(TransactionRequest.self, from: body) {
        if transaction.source.isPresent { capture(transaction.source) }
        if let code = transaction.currency { _ = try? Currency(code: code) }
    }
    if let schedule = try? decoder.decode(ScheduleRequest.self, from: body) {
        if let code = schedule.currency { _ = try? Currency(code: code) }
        expand(schedule.plan)
    }
    _ = try? decoder.decode(ScheduleChange.self, from: body)
    _ = try? decoder.decode(FollowUpAmount.self, from: body)
    if let definitions = try? decoder.decode(CustomFieldDefinitions.self, from: body) {
        _ = try? CustomFieldDefinition.validateDefinitions(definitions.fields)
    }
    return 0
}

/// Captures the card data of a request, checking the result and the error.
func capture(_ source: CardSource) {
    do {
        FuzzOracle.expectWellFormed(try source.capture())
    } catch {
        let card = source.card
        FuzzOracle.expectNoCardData(in: error, from: [card?.number, card?.cvv, card?.expiryDate, source.track, source.emv])
    }
}

/// Validates and expands a plan the way `POST /v1/schedules` does, with a fixed "today".
func expand(_ request: PlanRequest) {
    guard let plan = try? Plan(validating: request, rules: RequestRules.plans) else { return }
    let horizon = RequestRules.today.adding(days: RequestRules.horizonDays)
    let limit = plan.end == .never ? RequestRules.horizonDays * 2 + 10 : RequestRules.plans.maxCount
    let steps = plan.steps(horizon: horizon, limit: limit)
    guard steps.count <= limit else { fatalError("a plan expanded past its step limit") }
    for (earlier, later) in zip(steps, steps.dropFirst()) where !(earlier.date < later.date && earlier.sequence < later.sequence) {
        fatalError("a plan's steps are not in strictly increasing date order")
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
