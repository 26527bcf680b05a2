import Payments
import Synchronization
import Vault

/// A gateway over the sandbox whose voids may reverse part of a transaction (as gateways that
/// document a partial reversal do), or, with `partialVoid` false, only whole transactions. It
/// refuses what such a gateway refuses: a void of more than remains, a partial void where it takes
/// none. Every void it receives is kept for the test to read. With `holdCaptures`, a capture waits
/// at the gateway until `releaseCaptures()`, as one whose answer is slow.
final class PartialReversalGateway: GatewayAdapter {
    let name = "sandbox"
    let sandbox = SandboxGateway()
    let supportsPartialVoid: Bool
    /// Voids received: the gateway transaction id and the amount asked (nil: the whole transaction).
    let voids = Mutex<[(id: String, amount: Int64?)]>([])
    /// What was reversed so far by partial voids, by gateway transaction id.
    private let reversed = Mutex<[String: Int64]>([:])

    /// Whether captures wait for `releaseCaptures()`.
    let holdCaptures = Mutex(false)
    private let heldCaptures = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(partialVoid: Bool) {
        supportsPartialVoid = partialVoid
    }

    /// How many captures are waiting at the gateway.
    var heldCaptureCount: Int { heldCaptures.withLock { $0.count } }

    /// Lets every held capture through and stops holding.
    func releaseCaptures() {
        holdCaptures.withLock { $0 = false }
        for waiting in heldCaptures.withLock({ held in defer { held = [] }; return held }) { waiting.resume() }
    }

    func sale(_ request: ChargeRequest) async -> GatewayResult { await sandbox.sale(request) }
    func authorize(_ request: ChargeRequest) async -> GatewayResult { await sandbox.authorize(request) }
    func capture(_ request: FollowUpRequest) async -> GatewayResult {
        if holdCaptures.withLock({ $0 }) {
            await withCheckedContinuation { continuation in heldCaptures.withLock { $0.append(continuation) } }
        }
        return await sandbox.capture(request)
    }
    func refund(_ request: FollowUpRequest) async -> GatewayResult { await sandbox.refund(request) }
    func verify(_ request: ChargeRequest) async -> GatewayResult { await sandbox.verify(request) }
    func credit(_ request: ChargeRequest) async -> GatewayResult { await sandbox.credit(request) }
    func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await sandbox.lookup(reference: reference, gatewayTransactionID: gatewayTransactionID)
    }

    func void(_ request: FollowUpRequest) async -> GatewayResult {
        voids.withLock { $0.append((request.gatewayTransactionID, request.amount?.minorUnits)) }
        guard let original = try? await sandbox.transaction(id: request.gatewayTransactionID), !original.voided else {
            return .error("transaction_not_found", retryable: false, text: "No approved transaction with that id.")
        }
        let remaining = original.authorized.minorUnits - reversed.withLock { $0[original.id] ?? 0 }
        guard let amount = request.amount?.minorUnits, amount != remaining else { return await sandbox.void(request) }
        guard supportsPartialVoid else {
            return .error("partial_void_not_supported", retryable: false, text: "A void reverses the whole transaction.")
        }
        guard amount > 0, amount < remaining else {
            return .error("amount_exceeds_voidable", retryable: false, text: "The reversal exceeds what remains.")
        }
        reversed.withLock { $0[original.id, default: 0] += amount }
        return GatewayResult(outcome: .approved, transactionID: original.id, responseCode: "00", responseText: "Partially reversed")
    }
}
