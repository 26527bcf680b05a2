/// A schedule as the merchant asks for it, before validation: the card, the amount per step and
/// the plan. ``ScheduleService`` checks it and expands it into steps (`preview`) or creates it.
public struct NewSchedule: Sendable, Equatable {
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
    /// The plan as given.
    public var plan: PlanTerms

    /// Creates a schedule to check.
    public init(
        secureCardReference: String? = nil, merchantReference: String? = nil, amount: Int64?, currency: String?, description: String? = nil,
        receiptEmail: String? = nil, receiptPhone: String? = nil, externalId: String? = nil, plan: PlanTerms
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
}
