internal import CSodium
import Synchronization

/// Fixed-size slots in one `sodium_malloc`'d region (guard pages around it, `mlock`ed), for
/// plaintext that lives for one request: an opened card record, decoded and dropped.
///
/// A `sodium_malloc` per record costs an `mmap`, three `mprotect`s, an `mlock` and their undoing
/// on free; in a multi-threaded server each of those also shoots down the other cores' TLBs and
/// takes the address-space lock that every page fault needs. Opening a card for a retrieval spent
/// about a seventh of the server's CPU there. The pool pays that once, at first use; a slot is
/// zeroed before it goes back. Slots are not made read-only (a page-granular `mprotect` per slot
/// is the cost being avoided): long-lived keys stay in their own protected allocations.
final class LockedSlotPool: @unchecked Sendable {
    // @unchecked Sendable is safe: `base`, `slotSize` and `slotCount` are immutable after init,
    // and a slot's bytes are touched only by the one caller that took its index from `free`
    // (under the mutex) until it gives the index back.
    private let base: UnsafeMutableRawPointer
    private let free: Mutex<[Int]>

    /// The largest plaintext a slot holds; larger ones get their own allocation.
    let slotSize: Int
    /// How many slots the region has.
    let slotCount: Int

    /// The process's pool (256 slots of 1 KiB, 256 KiB locked), or nil when libsodium could not
    /// allocate it; callers then fall back to one allocation per value.
    static let shared: LockedSlotPool? = LockedSlotPool(slotSize: 1024, slotCount: 256)

    /// A pool of `slotCount` slots of `slotSize` bytes, or nil when the region cannot be allocated.
    init?(slotSize: Int, slotCount: Int) {
        precondition(slotSize > 0 && slotCount > 0, "a pool needs slots")
        guard (try? Sodium.ensureInitialized()) != nil, let base = sodium_malloc(slotSize * slotCount) else { return nil }
        sodium_memzero(base, slotSize * slotCount)
        self.base = base
        self.slotSize = slotSize
        self.slotCount = slotCount
        self.free = Mutex(Array((0..<slotCount).reversed()))
    }

    /// A free slot for `count` bytes, or nil when `count` is larger than a slot or all are taken.
    func take(count: Int) -> (slot: Int, pointer: UnsafeMutableRawPointer)? {
        guard count <= slotSize, let slot = free.withLock({ $0.popLast() }) else { return nil }
        return (slot, base + slot * slotSize)
    }

    /// Zeroes a slot's first `count` bytes (all its user ever had) and makes it free again.
    func give(back slot: Int, count: Int) {
        sodium_memzero(base + slot * slotSize, count)
        free.withLock { $0.append(slot) }
    }

    /// Slots free now (for tests and metrics).
    var freeSlotCount: Int {
        free.withLock { $0.count }
    }
}
