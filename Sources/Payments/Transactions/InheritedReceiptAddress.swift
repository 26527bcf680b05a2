/// Where a follow-up's receipt goes when neither its request gives an address nor its original
/// keeps one (``Transaction/sealedReceiptAddress``): the address of what made the original, such
/// as the receipt address of the schedule whose step charged it. The follow-up then keeps that
/// address sealed as its own, and its receipt takes the same path as any other
/// (``OutcomeReceipts``).
public protocol InheritedReceiptAddress: Sendable {
    /// The receipt address `original` inherits, opened; nil when it inherits none.
    /// - Throws: when the address cannot be read now (the follow-up then sends no receipt).
    func receiptAddress(of original: Transaction) async throws -> String?
}
