public import Vault

/// Changes to a schedule's future steps only; absent fields stay. The plan and the currency are
/// not changeable: a different plan is another schedule.
public struct ScheduleChange: Sendable, Equatable {
    /// New amount for steps not yet charged.
    public var amount: Int64?
    /// Another card, by token.
    public var secureCardReference: String?
    /// Another card, by the merchant's reference.
    public var merchantReference: String?
    /// Receipt e-mail (clear removes it).
    public var receiptEmail: PatchField<String>
    /// Receipt phone (clear removes it).
    public var receiptPhone: PatchField<String>
    /// Description (clear removes it).
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
}
