import Payments
public import Scheduler
import Vault

/// `POST /v1/schedules` and `/v1/schedules/preview` (seed: RecurrentPaymentContext) as the JSON
/// body carries them: the schedule's fields and, at the same level, the plan's (``PlanRequest``).
public struct ScheduleRequest: Sendable, Decodable, Equatable {
    /// The schedule asked for, as ``ScheduleService`` takes it.
    public var schedule: NewSchedule

    /// Creates a request.
    public init(_ schedule: NewSchedule) {
        self.schedule = schedule
    }

    private enum CodingKeys: String, CodingKey {
        case secureCardReference, merchantReference, amount, currency, description, receiptEmail, receiptPhone, externalId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schedule = NewSchedule(
            secureCardReference: try container.decodeIfPresent(String.self, forKey: .secureCardReference),
            merchantReference: try container.decodeIfPresent(String.self, forKey: .merchantReference),
            amount: try Self.minorUnits(container, .amount),
            currency: try container.decodeIfPresent(String.self, forKey: .currency),
            description: try container.decodeIfPresent(String.self, forKey: .description),
            receiptEmail: try container.decodeIfPresent(String.self, forKey: .receiptEmail),
            receiptPhone: try container.decodeIfPresent(String.self, forKey: .receiptPhone),
            externalId: try container.decodeIfPresent(String.self, forKey: .externalId),
            plan: try PlanRequest(from: decoder).terms)
    }

    /// An amount in minor units: a whole JSON number; a fraction is a 422 on the field, not a parse error.
    static func minorUnits<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int64? {
        do {
            return try MinorUnits.decode(container, key)
        } catch let error as MinorUnits.FractionError {
            throw ScheduleError.invalid(field: error.field, rule: MinorUnits.fractionRule, message: MinorUnits.fractionMessage(error.field))
        }
    }
}

/// `PATCH /v1/schedules/{id}` as the JSON body carries it: changes for future steps only; absent
/// fields stay, null clears; a plan field or the currency is refused (`not_changeable`).
public struct ScheduleChangeRequest: Sendable, Decodable, Equatable {
    /// The change, as ``ScheduleService`` takes it.
    public var change: ScheduleChange

    /// Creates a request.
    public init(_ change: ScheduleChange) {
        self.change = change
    }

    private enum CodingKeys: String, CodingKey {
        case amount, secureCardReference, merchantReference, receiptEmail, receiptPhone, description
        case currency, type, startDate, endType, endDate, endCount, month, day, hour, minute, dates, timeZone
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for key in [CodingKeys.currency, .type, .startDate, .endType, .endDate, .endCount, .month, .day, .hour, .minute, .dates, .timeZone]
        where container.contains(key) {
            throw ScheduleError.invalid(field: key.stringValue, rule: "not_changeable",
                                        message: "\(key.stringValue) cannot be changed; cancel the schedule and create another.")
        }
        change = ScheduleChange(
            amount: try ScheduleRequest.minorUnits(container, .amount),
            secureCardReference: try container.decodeIfPresent(String.self, forKey: .secureCardReference),
            merchantReference: try container.decodeIfPresent(String.self, forKey: .merchantReference),
            receiptEmail: try Self.patch(container, .receiptEmail),
            receiptPhone: try Self.patch(container, .receiptPhone),
            description: try Self.patch(container, .description))
    }

    private static func patch(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> PatchField<String> {
        guard container.contains(key) else { return .absent }
        if try container.decodeNil(forKey: key) { return .clear }
        return .set(try container.decode(String.self, forKey: key))
    }
}
