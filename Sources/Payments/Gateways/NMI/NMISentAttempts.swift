import Synchronization

/// The charge attempts this process has already sent to NMI, so a re-send of the same attempt
/// keeps NMI's own duplicate check on.
///
/// A charge is sent with `dup_seconds=0` (NMI's check off) only the first time its attempt
/// (idempotency key and order id) is sent: a second, different charge of the same card and amount
/// must not be refused. Any later send of the same attempt (an in-run retry after a rate limit, a
/// re-send after a look-up found nothing) leaves `dup_seconds` out, so NMI's default check
/// (card and amount, 1,200 s) answers "Duplicate transaction" if the first one did arrive, and the
/// adapter reconciles with the original instead of charging twice.
///
/// One memory per adapter (the vault makes an adapter per charge run, and retries an attempt
/// inside a run with the same adapter), bounded: the oldest attempts are forgotten past
/// ``capacity``. A later run re-sends an attempt only after a look-up by order id proved that NMI
/// never received it; that send turns the check off again, as a first send does.
final class NMISentAttempts: Sendable {
    /// How many attempts are remembered.
    static let capacity = 100_000

    private struct Memory {
        var keys: Set<String> = []
        var order: [String] = []
        var head = 0
    }

    private let memory = Mutex(Memory())

    /// Records that the attempt is being sent; `true` when it was sent before.
    func markSent(idempotencyKey: String, reference: String) -> Bool {
        let key = idempotencyKey + "\u{1F}" + reference
        return memory.withLock { memory in
            guard memory.keys.insert(key).inserted else { return true }
            memory.order.append(key)
            if memory.keys.count > Self.capacity {
                memory.keys.remove(memory.order[memory.head])
                memory.head += 1
                if memory.head > Self.capacity {
                    memory.order.removeFirst(memory.head)
                    memory.head = 0
                }
            }
            return false
        }
    }
}
