import Payments
public import Vault

/// `POST /v1/schedules` and `/v1/schedules/preview` (seed: RecurrentPaymentContext).
public struct ScheduleRequest: Sendable, Decodable, Equatable {
    /// The card, by token.
    public var secureCardReference: String?
    /// Or by the merchant's reference.
    public var merchantReference: String?
    /// Amount per step in minor units.
    public var amount: Int64?
    /// ISO 4217 code.
    public var currency: String?
    /// Shown on statements and receipts.
    public var description: String?
    /// Receipt e-mail.
    public var receiptEmail: String?
    /// Receipt phone.
    public var receiptPhone: String?
    /// The merchant's own id.
    public var externalId: String?
    /// The plan fields.
    public var plan: PlanRequest

    /// Creates a request.
    public init(
        secureCardReference: String? = nil, merchantReference: String? = nil, amount: Int64?, currency: String?, description: String? = nil,
        receiptEmail: String? = nil, receiptPhone: String? = nil, externalId: String? = nil, plan: PlanRequest
    ) {
        self.secureCardReference = secureCardReference
        self.merchantReference = merchantReference
        self.amount = amount
        self.currency = currency
        self.description = description
        self.receiptEmail = receiptEmail
        self.receiptPhone = receiptPhone
        self.externalId = externalId
        self.plan = plan
    }

    private enum CodingKeys: String, CodingKey {
        case secureCardReference, merchantReference, amount, currency, description, receiptEmail, receiptPhone, externalId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        secureCardReference = try container.decodeIfPresent(String.self, forKey: .secureCardReference)
        merchantReference = try container.decodeIfPresent(String.self, forKey: .merchantReference)
        amount = try Self.minorUnits(container, .amount)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        receiptEmail = try container.decodeIfPresent(String.self, forKey: .receiptEmail)
        receiptPhone = try container.decodeIfPresent(String.self, forKey: .receiptPhone)
        externalId = try container.decodeIfPresent(String.self, forKey: .externalId)
        plan = try PlanRequest(from: decoder)
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

/// `PATCH /v1/schedules/{id}`: changes for future steps only; absent fields stay.
public struct ScheduleChange: Sendable, Decodable, Equatable {
    /// New amount for steps not yet charged.
    public var amount: Int64?
    /// Another card, by token.
    public var secureCardReference: String?
    /// Another card, by the merchant's reference.
    public var merchantReference: String?
    /// Receipt e-mail (null clears).
    public var receiptEmail: PatchField<String>
    /// Receipt phone (null clears).
    public var receiptPhone: PatchField<String>
    /// Description (null clears).
    public var description: PatchField<String>

    /// Creates a change.
    public init(amount: Int64? = nil, secureCardReference: String? = nil, merchantReference: String? = nil,
                receiptEmail: PatchField<String> = .absent, receiptPhone: PatchField<String> = .absent, description: PatchField<String> = .absent) {
        self.amount = amount
        self.secureCardReference = secureCardReference
        self.merchantReference = merchantReference
        self.receiptEmail = receiptEmail
        self.receiptPhone = receiptPhone
        self.description = description
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
        amount = try ScheduleRequest.minorUnits(container, .amount)
        secureCardReference = try container.decodeIfPresent(String.self, forKey: .secureCardReference)
        merchantReference = try container.decodeIfPresent(String.self, forKey: .merchantReference)
        receiptEmail = try Self.patch(container, .receiptEmail)
        receiptPhone = try Self.patch(container, .receiptPhone)
        description = try Self.patch(container, .description)
    }

    private static func patch(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> PatchField<String> {
        guard container.contains(key) else { return .absent }
        if try container.decodeNil(forKey: key) { return .clear }
        return .set(try container.decode(String.self, forKey: key))
    }
}

/// Why a schedule operation was refused.
public enum ScheduleError: Error, Equatable, Sendable {
    /// A field breaks a rule (422).
    case invalid(field: String, rule: String, message: String)
    /// No such schedule or step for this merchant (404).
    case notFound(String)
    /// The schedule's status does not allow the operation (409).
    case wrongStatus(current: ScheduleStatus, operation: String)
    /// The step cannot be skipped (409).
    case stepNotSkippable(status: StepStatus)
    /// A step changed between reading and writing: a charge run claimed it (409; nothing written).
    case stepChanged(stepID: String)
    /// The schedule's card has no customer-initiated first use of its current number on file with
    /// the merchant's gateway, and none could be made (409): its charges would have nothing to refer to.
    case storedCredentialMissing(secureCardReference: String, merchantReference: String?)
    /// The schedule's or one of its steps' stored rows are not as the vault wrote them (altered in
    /// the database): nothing is changed or re-bound, and the runner never charges them (409).
    case integrityFailed(scheduleID: String)
}
