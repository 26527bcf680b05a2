import Synchronization
import Vault

/// The in-process, deterministic gateway for development and tests (`sandbox`).
///
/// Test cards (``SandboxTestCard``) decide approvals and declines; any other valid card
/// approves. Like a real gateway it remembers idempotency keys (the same key answers the same
/// result, with the same transaction id, instead of charging again), finds charges by reference,
/// and keeps authorized, captured and refunded amounts so that capture, void and refund follow
/// the rules: capture at most what was authorized, once; refund at most what was captured and
/// not yet refunded; no void after a refund. ``Behaviour`` adds latency and injected failures.
public final class SandboxGateway: GatewayAdapter {
    /// Always `sandbox`.
    public let name = "sandbox"
    private let ledger: Mutex<SandboxLedger>

    /// Creates a sandbox with a behaviour (by default: instant, never failing).
    public init(behaviour: Behaviour = Behaviour()) {
        ledger = Mutex(SandboxLedger(behaviour: behaviour))
    }

    /// The current behaviour.
    public var behaviour: Behaviour {
        ledger.withLock { $0.behaviour }
    }

    /// Replaces the behaviour (the sandbox is shared, so tests change it in place).
    public func setBehaviour(_ behaviour: Behaviour) {
        ledger.withLock { $0.behaviour = behaviour }
    }

    /// Queues failures for the next calls, one per call.
    public func injectFailures(_ failures: [InjectedFailure]) {
        ledger.withLock { $0.behaviour.failures.append(contentsOf: failures) }
    }

    /// A remembered transaction by id.
    public func transaction(id: String) -> SandboxTransaction? {
        ledger.withLock { $0.transaction(id) }
    }

    /// How many transactions the sandbox remembers (approved and declined).
    public var transactionCount: Int {
        ledger.withLock { $0.transactions.count }
    }

    /// Remembered transactions sent with a reference (charges and follow-ups), sorted by id.
    public func transactions(reference: String) -> [SandboxTransaction] {
        ledger.withLock { ledger in
            ledger.transactions.values.filter { $0.reference == reference }.sorted { $0.id < $1.id }
        }
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
        await perform("capture", request.reference, request.idempotencyKey, fingerprint: fingerprint("capture", request)) {
            ledger in SandboxGateway.capture(request, in: &ledger)
        }
    }

    /// Voids an approved, unrefunded transaction (or a refund, restoring what it took).
    public func void(_ request: FollowUpRequest) async -> GatewayResult {
        await perform("void", request.reference, request.idempotencyKey, fingerprint: fingerprint("void", request)) {
            ledger in SandboxGateway.void(request, in: &ledger)
        }
    }

    /// Refunds at most what was captured and not yet refunded; each refund gets its own id.
    public func refund(_ request: FollowUpRequest) async -> GatewayResult {
        await perform("refund", request.reference, request.idempotencyKey, fingerprint: fingerprint("refund", request)) {
            ledger in SandboxGateway.refund(request, in: &ledger)
        }
    }

    /// Finds a transaction by id (when given) or by the reference it was sent with.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        ledger.withLock { ledger in
            let found = gatewayTransactionID.flatMap { ledger.transaction($0) } ?? ledger.transaction(reference: reference)
            return found.map { .found($0.result) } ?? .notFound
        }
    }

    // MARK: - Processing

    func charge(_ request: ChargeRequest, kind: SandboxTransaction.Kind) async -> GatewayResult {
        let operation = kind == .sale ? "sale" : kind == .authorization ? "authorize" : kind == .refund ? "credit" : "verify"
        let fingerprint = [operation, request.reference, String(request.amount.minorUnits), request.amount.currency.code,
                           request.card.pan.last4, request.card.expiry.mmyy].joined(separator: "|")
        if let refused = GatewayPreChecks().refusal(for: request) { return refused }
        return await perform(operation, request.reference, request.idempotencyKey, fingerprint: fingerprint) { ledger in
            let minimum: Int64 = kind == .verification ? 0 : 1
            guard request.amount.minorUnits >= minimum else {
                return .error("invalid_amount", retryable: false, text: "The amount must be positive.")
            }
            let id = SandboxGateway.transactionID(operation, request.idempotencyKey)
            let zero = Money(minorUnits: 0, currency: request.amount.currency)
            let result: GatewayResult
            if let decline = SandboxTestCard.decline(forNumber: request.card.pan.digits) {
                result = GatewayResult(outcome: .declined(code: decline.code, category: decline.category),
                                       transactionID: id, responseCode: decline.responseCode, responseText: decline.text,
                                       avsResult: request.card.postalCode == nil ? nil : "Y",
                                       cvvResult: request.card.cvv == nil ? nil : "M")
            } else {
                result = GatewayResult(outcome: .approved, transactionID: id,
                                       authCode: SandboxGateway.authCode(request.idempotencyKey), responseCode: "00",
                                       responseText: "Approved", avsResult: request.card.postalCode == nil ? nil : "Y",
                                       cvvResult: request.card.cvv == nil ? nil : "M",
                                       networkTransactionID: SandboxGateway.networkTransactionID(id))
            }
            let approved = result.outcome == .approved
            let authorized = approved && kind != .verification ? request.amount : zero
            ledger.record(SandboxTransaction(id: id, kind: kind, reference: request.reference, authorized: authorized,
                                             captured: approved && kind == .sale ? request.amount : zero,
                                             refunded: zero, voided: false, parentID: nil, result: result,
                                             storedCredential: request.storedCredential))
            return result
        }
    }

    private func perform(_ operation: String, _ reference: String, _ key: String, fingerprint: String,
                         _ body: @Sendable (inout SandboxLedger) -> GatewayResult) async -> GatewayResult {
        let call = SandboxCall(operation: operation, reference: reference, idempotencyKey: key)
        let (latency, rule) = ledger.withLock { ($0.behaviour.latency, $0.behaviour.failureRule) }
        if latency > .zero {
            try? await Task.sleep(for: latency)
        }
        let queued = ledger.withLock { $0.takeQueuedFailure() }
        let failure = queued ?? rule?(call)
        switch failure {
        case .serverError:
            return .error("gateway_unavailable", retryable: true, text: "The sandbox answered 503 (injected).")
        case .timeoutBeforeProcessing:
            return .inDoubt("timeout", text: "No answer within the timeout (injected).")
        default:
            break
        }
        let result = ledger.withLock { ledger -> GatewayResult in
            if let remembered = ledger.remembered(key) {
                guard remembered.fingerprint == fingerprint else {
                    return .error("idempotency_key_reused", retryable: false,
                                  text: "This idempotency key was used for a different request.")
                }
                return remembered.result
            }
            let result = body(&ledger)
            ledger.remember(key, fingerprint: fingerprint, result: result)
            return result
        }
        switch failure {
        case .timeoutAfterProcessing:
            return .inDoubt("timeout", text: "No answer within the timeout (injected).")
        case .garbledResponse:
            return .inDoubt("unreadable_response", text: "The answer could not be read (injected).")
        default:
            return result
        }
    }

    private func fingerprint(_ operation: String, _ request: FollowUpRequest) -> String {
        [operation, request.reference, request.gatewayTransactionID, request.amount.map { String($0.minorUnits) } ?? "full",
         request.amount?.currency.code ?? ""].joined(separator: "|")
    }

    static func transactionID(_ operation: String, _ key: String) -> String {
        "sbx_" + StableHash.hex(operation + "\u{1F}" + key)
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
