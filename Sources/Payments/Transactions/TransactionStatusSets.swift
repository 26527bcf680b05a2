public import Vault

/// The groups of transaction statuses the business rules speak of, defined once here: the storage
/// engines write these lists into their statements instead of status names of their own.
extension TransactionStatus {
    /// The earlier transactions a new one for the same card, amount and currency duplicates: those
    /// that took the money or may still take it (pending, approved, in doubt, captured).
    public static let countedAsDuplicates: [TransactionStatus] = [.pending, .approved, .inDoubt, .captured]

    /// The statuses in which an authorization and its capture are voided together (one void at the
    /// gateway reverses both): approved or captured.
    public static let voidedTogether: [TransactionStatus] = [.approved, .captured]
}

extension TransactionStatus: StatusName {}
extension TransactionType: StatusName {}
