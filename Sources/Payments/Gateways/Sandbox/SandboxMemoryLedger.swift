import Synchronization

/// The sandbox's ledger in this process's memory: gone with the process, bounded by a retention
/// (the oldest transactions and keys are forgotten first, so a long-running process's memory stays
/// bounded). For tests and benchmarks; the vault keeps its sandbox ledger in its database.
public final class SandboxMemoryLedger: SandboxLedgerStore {
    private struct State {
        var transactions: [String: SandboxTransaction] = [:]
        var calls: [String: SandboxRememberedCall] = [:]
        var transactionOrder = FIFO()
        var keyOrder = FIFO()
        var forgot = false
    }

    private let state = Mutex(State())
    private let retention: Int

    /// Creates an empty ledger remembering at most `retention` transactions and as many keys
    /// (100,000 by default, about 50 MB).
    public init(retention: Int = 100_000) {
        self.retention = max(1, retention)
    }

    public func sandboxCall(idempotencyKey: String, transactionIDs: [String],
                            _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult {
        state.withLock { state in
            var loaded = transactionIDs.compactMap { state.transactions[$0] }
            loaded += loaded.compactMap { $0.parentID.flatMap { state.transactions[$0] } }
            var work = SandboxLedgerWork(idempotencyKey: idempotencyKey, remembered: state.calls[idempotencyKey],
                                         transactions: loaded)
            let result = decide(&work)
            for transaction in work.updated { state.transactions[transaction.id] = transaction }
            for transaction in work.recorded {
                if state.transactions.updateValue(transaction, forKey: transaction.id) == nil {
                    state.transactionOrder.push(transaction.id)
                }
            }
            if let call = work.newCall, state.calls.updateValue(call, forKey: call.idempotencyKey) == nil {
                state.keyOrder.push(call.idempotencyKey)
            }
            while state.transactions.count > retention, let oldest = state.transactionOrder.pop() {
                state.transactions[oldest] = nil
                state.forgot = true
            }
            while state.calls.count > retention, let oldest = state.keyOrder.pop() {
                state.calls[oldest] = nil
                state.forgot = true
            }
            return result
        }
    }

    public func sandboxTransaction(id: String) async throws -> SandboxTransaction? {
        state.withLock { $0.transactions[id] }
    }

    public func sandboxTransactions(reference: String) async throws -> [SandboxTransaction] {
        state.withLock { state in
            state.transactionOrder.items.compactMap { state.transactions[$0] }.filter { $0.reference == reference }
        }
    }

    public func sandboxCalls(reference: String) async throws -> [SandboxRememberedCall] {
        state.withLock { state in
            state.keyOrder.items.compactMap { state.calls[$0] }.filter { $0.reference == reference }
        }
    }

    public func sandboxTransactionCount() async throws -> Int {
        state.withLock { $0.transactions.count }
    }

    /// True once the retention made it forget a transaction or a key.
    public var sandboxLedgerForgets: Bool {
        state.withLock { $0.forgot }
    }

    /// An insertion-ordered queue of ids with amortized O(1) pops.
    private struct FIFO {
        private var storage: [String] = []
        private var head = 0

        /// The ids not popped, oldest first.
        var items: ArraySlice<String> { storage[head...] }

        mutating func push(_ item: String) { storage.append(item) }

        mutating func pop() -> String? {
            guard head < storage.count else { return nil }
            let item = storage[head]
            head += 1
            if head > 1024, head * 2 > storage.count {
                storage.removeFirst(head)
                head = 0
            }
            return item
        }
    }
}
