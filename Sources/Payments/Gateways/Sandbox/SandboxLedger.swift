public import Vault

/// One transaction the sandbox keeps, as a gateway's records would show it.
///
/// Holds no card data: amounts, the reference, the answer (ids, codes, texts) and the
/// stored-credential flag, nothing derived from the card number.
public struct SandboxTransaction: Sendable, Equatable {
    /// What kind of transaction it is.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// Authorized and captured at once.
        case sale
        /// Authorized; capturable.
        case authorization
        /// A card check without a charge.
        case verification
        /// Money returned on a sale or capture (or, without a parent, a credit).
        case refund
    }

    /// The sandbox's transaction id.
    public var id: String
    /// The kind.
    public var kind: Kind
    /// The reference it was sent with.
    public var reference: String
    /// The amount authorized (for a refund: the amount refunded), less what partial voids released
    /// before capture.
    public var authorized: Money
    /// The amount captured so far, less what partial voids released after capture.
    public var captured: Money
    /// The amount refunded so far.
    public var refunded: Money
    /// Whether the whole transaction was voided.
    public var voided: Bool
    /// The amount voids released, in full or in part.
    public var reversed: Money
    /// The transaction refunded, for a refund.
    public var parentID: String?
    /// The result the original call answered.
    public var result: GatewayResult
    /// How a charge flagged its use of a stored card (`nil` for none, and for follow-ups).
    public var storedCredential: StoredCredentialUse?

    /// Creates a transaction; `reversed` is zero unless given.
    public init(id: String, kind: Kind, reference: String, authorized: Money, captured: Money, refunded: Money,
                voided: Bool, reversed: Money? = nil, parentID: String?, result: GatewayResult,
                storedCredential: StoredCredentialUse? = nil) {
        self.id = id
        self.kind = kind
        self.reference = reference
        self.authorized = authorized
        self.captured = captured
        self.refunded = refunded
        self.voided = voided
        self.reversed = reversed ?? Money(minorUnits: 0, currency: authorized.currency)
        self.parentID = parentID
        self.result = result
        self.storedCredential = storedCredential
    }

    /// Whether the original call was approved.
    public var isApproved: Bool { result.outcome == .approved }
}

/// One call the sandbox processed, remembered under its idempotency key as a gateway remembers it:
/// the same key again answers ``result`` without doing anything twice, and look-ups of follow-ups
/// search these by reference.
public struct SandboxRememberedCall: Sendable, Equatable {
    /// The idempotency key the call came with.
    public var idempotencyKey: String
    /// `sale`, `authorize`, `verify`, `credit`, `capture`, `void` or `refund`.
    public var operation: String
    /// The reference the call was sent with.
    public var reference: String
    /// The transaction a follow-up acted on; `nil` for a charge.
    public var parentID: String?
    /// What the request said (operation, reference, amount, currency, the card's last four digits
    /// or the transaction acted on): a key sent again with another fingerprint is refused.
    /// Never more of the card than the last four digits.
    public var fingerprint: String
    /// The answer.
    public var result: GatewayResult

    /// Creates a remembered call.
    public init(idempotencyKey: String, operation: String, reference: String, parentID: String?, fingerprint: String,
                result: GatewayResult) {
        self.idempotencyKey = idempotencyKey
        self.operation = operation
        self.reference = reference
        self.parentID = parentID
        self.fingerprint = fingerprint
        self.result = result
    }
}

/// What one sandbox call reads and changes, inside one transaction of its ``SandboxLedgerStore``:
/// the call remembered under its idempotency key (if any) and the transactions it acts on (with
/// their parents). The sandbox's rules change it; the store then writes what changed.
public struct SandboxLedgerWork: Sendable {
    /// The call's idempotency key.
    public let idempotencyKey: String
    /// The call remembered under the key before this one, if any.
    public let remembered: SandboxRememberedCall?
    /// The call to remember under the key, set once the call is decided.
    public private(set) var newCall: SandboxRememberedCall?
    /// The transactions loaded or recorded, by id, as changed so far.
    public private(set) var transactions: [String: SandboxTransaction]
    /// Ids of transactions recorded by this call (to insert), in order.
    public private(set) var recordedIDs: [String] = []
    /// Ids of loaded transactions this call changed (to update), in order.
    public private(set) var updatedIDs: [String] = []

    /// Creates the work of a call from what the store read.
    public init(idempotencyKey: String, remembered: SandboxRememberedCall?, transactions: [SandboxTransaction]) {
        self.idempotencyKey = idempotencyKey
        self.remembered = remembered
        self.transactions = Dictionary(transactions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The transactions this call recorded, in order.
    public var recorded: [SandboxTransaction] { recordedIDs.compactMap { transactions[$0] } }

    /// The loaded transactions this call changed, in order.
    public var updated: [SandboxTransaction] { updatedIDs.compactMap { transactions[$0] } }

    /// A loaded or recorded transaction.
    public func transaction(_ id: String) -> SandboxTransaction? { transactions[id] }

    /// Records a new transaction.
    mutating func record(_ transaction: SandboxTransaction) {
        transactions[transaction.id] = transaction
        if !recordedIDs.contains(transaction.id) { recordedIDs.append(transaction.id) }
        updatedIDs.removeAll { $0 == transaction.id }
    }

    /// Changes a loaded (or recorded) transaction.
    mutating func update(_ id: String, _ change: (inout SandboxTransaction) -> Void) {
        guard var transaction = transactions[id] else { return }
        change(&transaction)
        transactions[id] = transaction
        if !recordedIDs.contains(id), !updatedIDs.contains(id) { updatedIDs.append(id) }
    }

    /// Remembers the call under its key.
    mutating func remember(_ call: SandboxRememberedCall) {
        newCall = call
    }
}

/// Where the sandbox keeps its ledger: transactions and the calls remembered under idempotency
/// keys. In memory (``SandboxMemoryLedger``, one process) or in the vault's database (SQLite or
/// PostgreSQL), so a charge made by one process (`vault charge run`) can be refunded, voided,
/// captured and looked up by another (`vault serve`), and survives a restart.
public protocol SandboxLedgerStore: Sendable {
    /// Runs one sandbox call atomically: in one transaction, serialized with every other call
    /// under the same idempotency key and every other call that changes the same transactions,
    /// in this process or another, reads what `idempotencyKey` remembers and the transactions
    /// `transactionIDs` with their parents, passes them to `decide`, and writes what `decide`
    /// changed (recorded and updated transactions, the call to remember) before answering.
    ///
    /// `decide` changes nothing but the work it is given and answers from it alone, so an engine
    /// may run it more than once and keep one run's work: PostgreSQL decides a new charge before
    /// reading anything (no transaction to act on, `transactionIDs` empty) and writes it in one
    /// statement, or, when the key is already remembered, drops that work and decides again from
    /// what the key remembers.
    /// - Throws: the engine's errors; then nothing was written, or (a lost commit) it is unknown.
    func sandboxCall(idempotencyKey: String, transactionIDs: [String],
                     _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult
    /// A transaction by id.
    func sandboxTransaction(id: String) async throws -> SandboxTransaction?
    /// The transactions sent with `reference` (charges and refunds), oldest first.
    func sandboxTransactions(reference: String) async throws -> [SandboxTransaction]
    /// The calls remembered with `reference`, oldest first.
    func sandboxCalls(reference: String) async throws -> [SandboxRememberedCall]
    /// How many transactions the ledger holds (approved and declined).
    func sandboxTransactionCount() async throws -> Int
    /// Whether the ledger has forgotten transactions or calls (a memory bounded by a retention):
    /// then a look-up that finds nothing proves nothing.
    var sandboxLedgerForgets: Bool { get }
}

extension SandboxLedgerStore {
    /// A database ledger forgets nothing.
    public var sandboxLedgerForgets: Bool { false }
}

/// A new charge decided before the ledger is read: the answer, the call to remember and the
/// transaction it records (none for a refused call). Engines write it with one insert of the call
/// that changes nothing when the key is already remembered; then they drop it and run the call
/// the locked way, deciding again from what the key remembers.
public struct SandboxNewCharge: Sendable {
    public var result: GatewayResult
    public var call: SandboxRememberedCall
    public var recorded: SandboxTransaction?

    /// Runs `decide` on empty work when the call acts on no transaction (`transactionIDs` empty) and
    /// keeps what it decided when that is a new call recording at most one transaction and changing
    /// none; nil otherwise (the call must read the ledger first). `decide` changes nothing but its
    /// work (``SandboxLedgerStore``), so what it decided may be dropped unwritten.
    public static func decide(idempotencyKey: String, transactionIDs: [String],
                              _ decide: (inout SandboxLedgerWork) -> GatewayResult) -> SandboxNewCharge? {
        guard transactionIDs.isEmpty else { return nil }
        var work = SandboxLedgerWork(idempotencyKey: idempotencyKey, remembered: nil, transactions: [])
        let result = decide(&work)
        guard let call = work.newCall, work.updated.isEmpty, work.recorded.count <= 1 else { return nil }
        return SandboxNewCharge(result: result, call: call, recorded: work.recorded.first)
    }
}

/// A new sandbox charge ready for its write: the call to remember, the transaction it records
/// (none for a refused call), their documents (encoded on the caller's task, not inside the
/// write) and the time written beside them.
public struct DecidedSandboxCharge: Sendable {
    public var call: SandboxRememberedCall
    public var callDocument: String
    public var recorded: SandboxTransaction?
    public var recordedDocument: String?
    public var now: String

    public init(_ charge: SandboxNewCharge, now: String) {
        self.call = charge.call
        self.callDocument = SandboxLedgerCoding.document(charge.call)
        self.recorded = charge.recorded
        self.recordedDocument = charge.recorded.map(SandboxLedgerCoding.document)
        self.now = now
    }
}
