import Synchronization
import Vault

/// The in-process, deterministic gateway for development and tests (`sandbox`).
///
/// Test cards (``SandboxTestCard``) decide approvals, declines and every other path a real
/// gateway takes (refusal, rate limit, review, lost answers, processor timeout); any other valid
/// card approves. Like a real gateway it remembers idempotency keys (the same key answers the same
/// result, with the same transaction id, instead of charging again), finds charges by reference,
/// and keeps authorized, captured, refunded and reversed amounts so that capture, void and refund
/// follow the rules: capture at most what was authorized, once; refund at most what was captured
/// and not yet refunded; no void after a refund; a void may release part of what remains.
///
/// Its records live in a ``SandboxLedgerStore``: the vault's database (so every process on it sees
/// one ledger, across restarts) or, for tests, this process's memory. ``Behaviour`` adds latency
/// and injected failures, in this process only.
public final class SandboxGateway: GatewayAdapter {
    /// Always `sandbox`.
    public let name = "sandbox"
    /// Where the sandbox keeps its transactions and remembered calls.
    public let ledger: any SandboxLedgerStore
    private let behaviourState: Mutex<Behaviour>

    /// Creates a sandbox over a ledger (by default a new one in this process's memory, bounded by
    /// the behaviour's retention) with a behaviour (by default: instant, never failing).
    public init(behaviour: Behaviour = Behaviour(), ledger: (any SandboxLedgerStore)? = nil) {
        self.ledger = ledger ?? SandboxMemoryLedger(retention: behaviour.retention)
        behaviourState = Mutex(behaviour)
    }

    /// The current behaviour.
    public var behaviour: Behaviour {
        behaviourState.withLock { $0 }
    }

    /// Queues failures for the next calls, one per call.
    public func injectFailures(_ failures: [InjectedFailure]) {
        behaviourState.withLock { $0.failures.append(contentsOf: failures) }
    }

    /// A transaction of the ledger by id.
    public func transaction(id: String) async throws -> SandboxTransaction? {
        try await ledger.sandboxTransaction(id: id)
    }

    /// How many transactions the ledger holds (approved and declined).
    public var transactionCount: Int {
        get async throws { try await ledger.sandboxTransactionCount() }
    }

    /// The ledger's transactions sent with a reference (charges and refunds), oldest first.
    public func transactions(reference: String) async throws -> [SandboxTransaction] {
        try await ledger.sandboxTransactions(reference: reference)
    }

    /// Authorizes and captures.
    public func sale(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, kind: .sale)
    }

    /// Authorizes only.
    public func authorize(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, kind: .authorization)
    }

    /// Checks the card; the amount may be zero and nothing is captured.
    public func verify(_ request: ChargeRequest) async -> GatewayResult {
        await charge(request, kind: .verification)
    }

    /// Captures at most the authorized amount of an authorization, once.
    public func capture(_ request: FollowUpRequest) async -> GatewayResult {
        await perform(followUp("capture", request)) { work in SandboxGateway.capture(request, in: &work) }
    }

    /// Voids an approved, unrefunded transaction (or a refund, restoring what it took); an amount
    /// below what remains releases only that amount (``supportsPartialVoid``).
    public func void(_ request: FollowUpRequest) async -> GatewayResult {
        await perform(followUp("void", request)) { work in SandboxGateway.void(request, in: &work) }
    }

    /// Refunds at most what was captured and not yet refunded; each refund gets its own id.
    public func refund(_ request: FollowUpRequest) async -> GatewayResult {
        await perform(followUp("refund", request)) { work in SandboxGateway.refund(request, in: &work) }
    }

    /// The sandbox reverses part of a transaction when a void's amount is below what remains.
    public var supportsPartialVoid: Bool { true }

    // MARK: - Processing

    /// One call as the sandbox processes it.
    struct Call: Sendable {
        var call: SandboxCall
        var fingerprint: String
        var parentID: String?
        var path: SandboxCardPath = .approves
    }

    func charge(_ request: ChargeRequest, kind: SandboxTransaction.Kind) async -> GatewayResult {
        let operation = kind == .sale ? "sale" : kind == .authorization ? "authorize" : kind == .refund ? "credit" : "verify"
        // The card's last four digits at most: the ledger keeps nothing more of the card.
        let fingerprint = [operation, request.reference, String(request.amount.minorUnits), request.amount.currency.code,
                           request.card.pan.last4].joined(separator: "|")
        if let refused = GatewayPreChecks().refusal(for: request) { return refused }
        let path = SandboxTestCard.path(forNumber: request.card.pan.digits)
        let call = Call(call: SandboxCall(operation: operation, reference: request.reference, idempotencyKey: request.idempotencyKey),
                        fingerprint: fingerprint, parentID: nil, path: path)
        // A charge's answer depends on the request alone: decided here, before the ledger's write
        // (a database's single writer thread); inside it only a key seen before changes the answer.
        let (result, recorded) = SandboxGateway.charge(request, kind: kind, operation: operation, path: path)
        return await perform(call) { work in
            if let recorded { work.record(recorded) }
            return result
        }
    }

    /// A charge's answer and the transaction it records (none when refused before one is made).
    private static func charge(_ request: ChargeRequest, kind: SandboxTransaction.Kind, operation: String,
                               path: SandboxCardPath) -> (GatewayResult, SandboxTransaction?) {
        let minimum: Int64 = kind == .verification ? 0 : 1
        guard request.amount.minorUnits >= minimum else {
            return (.error("invalid_amount", retryable: false, text: "The amount must be positive."), nil)
        }
        let id = transactionID()
        let zero = Money(minorUnits: 0, currency: request.amount.currency)
        let avs = request.card.postalCode == nil ? nil : "Y"
        let cvv = request.card.cvv == nil ? nil : "M"
        let result: GatewayResult
        switch path {
        case .refused:
            // Refused before any transaction is made: remembered under the key, nothing recorded.
            return (.refused("invalid_request", responseCode: "30", text: "The gateway refused the request (format error)."), nil)
        case let .declines(decline):
            result = GatewayResult(outcome: .declined(code: decline.code, category: decline.category), transactionID: id,
                                   responseCode: decline.responseCode, responseText: decline.text, avsResult: avs, cvvResult: cvv)
        case .heldForReview:
            result = GatewayResult(outcome: .inDoubt(reason: "held_for_review"), transactionID: id, responseCode: "4",
                                   responseText: "The transaction is held for review.", avsResult: avs, cvvResult: cvv)
        default:
            result = GatewayResult(outcome: .approved, transactionID: id, authCode: authCode(request.idempotencyKey),
                                   responseCode: "00", responseText: path == .answerLostRecordsUnsearchable ? unsearchable : "Approved",
                                   avsResult: avs, cvvResult: cvv, networkTransactionID: networkTransactionID(id))
        }
        let approved = result.outcome == .approved
        let transaction = SandboxTransaction(id: id, kind: kind, reference: request.reference,
                                             authorized: approved && kind != .verification ? request.amount : zero,
                                             captured: approved && kind == .sale ? request.amount : zero,
                                             refunded: zero, voided: false, parentID: nil, result: result,
                                             storedCredential: request.storedCredential)
        return (result, transaction)
    }

    private func followUp(_ operation: String, _ request: FollowUpRequest) -> Call {
        let fingerprint = [operation, request.reference, request.gatewayTransactionID,
                           request.amount.map { String($0.minorUnits) } ?? "full",
                           request.amount?.currency.code ?? ""].joined(separator: "|")
        return Call(call: SandboxCall(operation: operation, reference: request.reference, idempotencyKey: request.idempotencyKey),
                    fingerprint: fingerprint, parentID: request.gatewayTransactionID)
    }

    private func perform(_ call: Call, _ body: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async -> GatewayResult {
        let (latency, rule) = behaviourState.withLock { ($0.latency, $0.failureRule) }
        if latency > .zero {
            try? await Task.sleep(for: latency)
        }
        let queued = behaviourState.withLock { $0.failures.isEmpty ? nil : $0.failures.removeFirst() }
        let failure = queued ?? rule?(call.call) ?? call.path.lostAnswer
        switch failure {
        case .serverError:
            return .error("gateway_unavailable", retryable: true, text: "The sandbox answered 503 (injected).")
        case .timeoutBeforeProcessing:
            return .inDoubt("timeout", text: "No answer within the timeout.")
        default:
            break
        }
        switch call.path {
        case .rateLimited:
            return .rateLimited(retryAfter: .seconds(1), responseCode: "429", text: "Too many requests; retry after 1 second.")
        case .processorTimeout:
            return GatewayResult(outcome: .error(code: "processor_timeout", retryable: true), responseCode: "91",
                                 responseText: "The card's processor did not answer in time.")
        default:
            break
        }
        let result: GatewayResult
        do {
            result = try await ledger.sandboxCall(idempotencyKey: call.call.idempotencyKey,
                                                  transactionIDs: call.parentID.map { [$0] } ?? []) { work in
                // Reads and changes only `work` (the call and the rules' static functions are
                // values): the ledger may run this more than once and write one run's work.
                if let remembered = work.remembered {
                    guard remembered.fingerprint == call.fingerprint else {
                        return .error("idempotency_key_reused", retryable: false,
                                      text: "This idempotency key was used for a different request.")
                    }
                    return remembered.result
                }
                let result = body(&work)
                work.remember(SandboxRememberedCall(idempotencyKey: call.call.idempotencyKey, operation: call.call.operation,
                                                    reference: call.call.reference, parentID: call.parentID,
                                                    fingerprint: call.fingerprint, result: result))
                return result
            }
        } catch {
            // Nothing written, or a commit whose outcome is unknown: only a look-up can tell.
            return .inDoubt("sandbox_ledger_unavailable", text: "The sandbox's ledger could not be written.")
        }
        switch failure {
        case .timeoutAfterProcessing:
            return .inDoubt("timeout", text: "No answer within the timeout.")
        case .garbledResponse:
            return .inDoubt("unreadable_response", text: "The answer could not be read (injected).")
        default:
            return result
        }
    }

    /// The response text that marks a charge whose records cannot be searched
    /// (``SandboxTestCard/answerLostRecordsUnsearchable``): look-ups that find it are unavailable.
    static let unsearchable = "Approved; the gateway's records of it cannot be searched."

    /// A new transaction's id: `sbx_` and 128 bits, the first 48 the time it was made. Ids made
    /// close in time sort together, so a ledger's writes land in the last pages of its unique index
    /// on them; a random id (it was a hash of the operation and the key) put each charge's entry
    /// in a random page of that index, a page each commit then wrote: a sixth of the pages a charged
    /// step writes. The same key still answers the same id: the ledger answers a key it remembers
    /// with what it remembers.
    static func transactionID() -> String {
        OpaqueToken.makeTimeOrdered(prefix: "sbx_", bits: 128)
    }

    /// A 15-digit network transaction id derived from the transaction id (Visa's are 15 digits).
    static func networkTransactionID(_ transactionID: String) -> String {
        let digits = String(StableHash.fnv1a64("nti\u{1F}" + transactionID) % 1_000_000_000_000_000)
        return String(repeating: "0", count: 15 - digits.count) + digits
    }

    static func authCode(_ key: String) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
        var value = StableHash.fnv1a64("auth\u{1F}" + key)
        var code = ""
        for _ in 0..<6 {
            code.append(alphabet[Int(value % UInt64(alphabet.count))])
            value /= UInt64(alphabet.count)
        }
        return code
    }
}

extension SandboxCardPath {
    /// The lost answer a card stands for, as the injected failure that behaves the same.
    var lostAnswer: SandboxGateway.InjectedFailure? {
        switch self {
        case .answerLostAfterCharging, .answerLostRecordsUnsearchable: .timeoutAfterProcessing
        case .answerLostBeforeCharging: .timeoutBeforeProcessing
        default: nil
        }
    }
}
