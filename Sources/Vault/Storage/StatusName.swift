/// A stored status, state, type or purpose name of the domain's own (lower-case letters and `_`,
/// never input), which the storage engines write into a statement's text as a literal.
///
/// The engines never type such a name themselves: each comes from the domain enum that defines
/// it, so renaming or removing a case breaks the build instead of leaving a statement that
/// silently matches nothing. `scripts/lint.sh` refuses a quoted status name in engine code.
public protocol StatusName: RawRepresentable, CaseIterable where RawValue == String {}

extension StatusName {
    /// The raw value as an SQL string literal (`'processing'`), for statements whose text must not
    /// change with the values (a partial index is used only when the query names its literal).
    public var sqlLiteral: String { "'" + rawValue + "'" }
}

extension Sequence where Element: StatusName {
    /// The raw values as a list of SQL string literals (`'active', 'past_due'`), as ``StatusName/sqlLiteral``.
    public var sqlLiterals: String { map(\.sqlLiteral).joined(separator: ", ") }
}

extension SecureCard.Status: StatusName {}
extension Merchant.Status: StatusName {}
extension Operator.Status: StatusName {}
extension ReceiptStatus: StatusName {}
extension WebhookEventStatus: StatusName {}
extension KeyPurpose: StatusName {}
extension CaptureSession.Status: StatusName {}
