public import Vault

/// The bindings of transaction rows (``RowBinding``): what an insider with write access to the
/// database must not change without the vault noticing before a follow-up moves money.
///
/// A transaction binds its id, merchant (the key is the merchant's), type, card token, currency,
/// amount, original (parent id), gateway transaction id and schedule step. A sale re-priced in SQL
/// and then refunded in full, or pointed at another merchant's gateway transaction, fails its
/// check, and the follow-up is refused before anything is sent.
///
/// Status and the captured, refunded and voided amounts are not bound: the stores change them in
/// SQL from the follow-ups' own rows (``ParentUpdate``), which are bound. The binding is recomputed
/// wherever a bound field is set: the insert, an outcome that brings the gateway's id, a card
/// attached by a registration by sale, and an operator's resolution.
public struct TransactionBinding: Sendable {
    static let kind = "transaction"

    private let rows: RowBinding

    /// Binds with the merchants' keys from `keyring`.
    public init(keyring: Keyring) {
        rows = RowBinding(keyring: keyring)
    }

    /// `transaction` with its binding computed from its fields as they stand.
    /// - Throws: `KeyringError.keyUnavailable` when the merchant's keys are destroyed.
    public func bound(_ transaction: Transaction) async throws -> Transaction {
        var transaction = transaction
        transaction.binding = try await rows.binding(kind: Self.kind, merchantID: transaction.merchantID, fields: Self.fields(of: transaction))
        return transaction
    }

    /// Whether `transaction`'s stored binding matches its fields: false for a row without one, a
    /// row altered since it was bound, and a merchant whose keys are destroyed.
    public func isIntact(_ transaction: Transaction) async -> Bool {
        await rows.isIntact(kind: Self.kind, merchantID: transaction.merchantID, fields: Self.fields(of: transaction), binding: transaction.binding)
    }

    static func fields(of transaction: Transaction) -> [String] {
        // An absent field ("-") never encodes like a present one ("+" and its value, even empty).
        func optional(_ value: String?) -> String { value.map { "+" + $0 } ?? "-" }
        return [
            transaction.id, transaction.type.rawValue, optional(transaction.secureCardReference), transaction.currency.code,
            String(transaction.amount), optional(transaction.parentID), optional(transaction.gatewayTransactionID), optional(transaction.stepID),
        ]
    }
}
