extension ParentUpdate {
    /// How `parent` changes once its follow-up `child` (capture, void or refund) is approved: a
    /// capture adds to what was captured, a void voids it, a refund adds to what was refunded
    /// (`refunded` once nothing remains of what was paid or captured). Nil for any other child.
    public static func afterApproval(of child: Transaction, parent: Transaction) -> ParentUpdate? {
        switch child.type {
        case .capture:
            return ParentUpdate(parentID: parent.id, status: .captured, capturedDelta: child.amount)
        case .void:
            return ParentUpdate(parentID: parent.id, status: .voided)
        case .refund:
            let refundable = parent.type == .authorize ? parent.capturedAmount : parent.amount
            let refunded = parent.refundedAmount + child.amount
            return ParentUpdate(parentID: parent.id, status: refunded >= refundable ? .refunded : .partiallyRefunded, refundedDelta: child.amount)
        default:
            return nil
        }
    }
}
