public import Vault

/// One transaction the sandbox remembers, as tests and operators see it.
public struct SandboxTransaction: Sendable, Equatable {
    /// What kind of transaction it is.
    public enum Kind: String, Sendable, Equatable {
        /// Authorized and captured at once.
        case sale
        /// Authorized; capturable.
        case authorization
        /// A card check without a charge.
        case verification
        /// Money returned on a sale or capture.
        case refund
    }

    /// The sandbox's transaction id.
    public var id: String
    /// The kind.
    public var kind: Kind
    /// The reference it was sent with.
    public var reference: String
    /// The amount authorized (for a refund: the amount refunded).
    public var authorized: Money
    /// The amount captured so far.
    public var captured: Money
    /// The amount refunded so far.
    public var refunded: Money
    /// Whether it was voided.
    public var voided: Bool
    /// The transaction refunded, for a refund.
    public var parentID: String?
    /// The result the original call answered.
    public var result: GatewayResult
    /// How a charge flagged its use of a stored card (`nil` for none, and for follow-ups).
    public var storedCredential: StoredCredentialUse? = nil

    /// Whether the original call was approved.
    var isApproved: Bool { result.outcome == .approved }
}

/// The sandbox's memory: transactions, references and idempotency keys, bounded by retention.
struct SandboxLedger {
    struct Remembered {
        var fingerprint: String
        var result: GatewayResult
    }

    var behaviour: SandboxGateway.Behaviour
    private(set) var transactions: [String: SandboxTransaction] = [:]
    private var referenceIndex: [String: String] = [:]
    private var idempotency: [String: Remembered] = [:]
    private var transactionOrder = FIFO()
    private var keyOrder = FIFO()

    init(behaviour: SandboxGateway.Behaviour) {
        self.behaviour = behaviour
    }

    /// The next queued failure, if any.
    mutating func takeQueuedFailure() -> SandboxGateway.InjectedFailure? {
        behaviour.failures.isEmpty ? nil : behaviour.failures.removeFirst()
    }

    func remembered(_ key: String) -> Remembered? { idempotency[key] }

    mutating func remember(_ key: String, fingerprint: String, result: GatewayResult) {
        if idempotency.updateValue(Remembered(fingerprint: fingerprint, result: result), forKey: key) == nil {
            keyOrder.push(key)
            while idempotency.count > behaviour.retention, let oldest = keyOrder.pop() {
                idempotency[oldest] = nil
            }
        }
    }

    func transaction(_ id: String) -> SandboxTransaction? { transactions[id] }

    func transaction(reference: String) -> SandboxTransaction? {
        referenceIndex[reference].flatMap { transactions[$0] }
    }

    mutating func record(_ transaction: SandboxTransaction) {
        if transactions.updateValue(transaction, forKey: transaction.id) == nil {
            transactionOrder.push(transaction.id)
        }
        let current = referenceIndex[transaction.reference].flatMap { transactions[$0] }
        if current == nil || !(current?.isApproved ?? false) || transaction.isApproved {
            referenceIndex[transaction.reference] = transaction.id
        }
        while transactions.count > behaviour.retention, let oldest = transactionOrder.pop() {
            if let evicted = transactions.removeValue(forKey: oldest), referenceIndex[evicted.reference] == oldest {
                referenceIndex[evicted.reference] = nil
            }
        }
    }

    mutating func update(_ id: String, _ change: (inout SandboxTransaction) -> Void) {
        guard var transaction = transactions[id] else { return }
        change(&transaction)
        transactions[id] = transaction
    }

    /// An insertion-ordered queue of ids with amortized O(1) pops.
    struct FIFO {
        private var items: [String] = []
        private var head = 0

        mutating func push(_ item: String) { items.append(item) }

        mutating func pop() -> String? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head > 1024, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }
}
