import Synchronization

/// The connections open on one listener, against its cap and the cap of each client address.
///
/// The listener's cap keeps open descriptors bounded; the per-address cap keeps one client from
/// taking every slot by opening connections and sending nothing (no request, so the
/// failed-authentication limiter never sees it). Addresses are counted by ``ClientAddressKey``
/// (IPv6 by /64). The table holds an entry per address with a connection open, no more.
final class OpenConnections: Sendable {
    /// Connections served at once; the next one is refused.
    let limit: Int
    /// Connections one client address (IPv6: one /64) may hold at once; the next one is refused.
    let limitPerAddress: Int
    private let count = Atomic<Int>(0)
    private let perAddress = Mutex<[String: Int]>([:])

    /// What a new connection gets.
    enum Admission: Equatable {
        case admitted
        /// The listener holds `limit` connections.
        case overListenerCap
        /// The connection's address holds `limitPerAddress` connections.
        case overAddressCap
    }

    /// A counted connection: release it when it closes, whether it was admitted or not.
    struct Slot: Sendable {
        fileprivate let addressKey: String
    }

    /// A counter refusing connections beyond `limit` in all and beyond `limitPerAddress` from one address.
    init(limit: Int, limitPerAddress: Int = .max) {
        self.limit = limit
        self.limitPerAddress = limitPerAddress
    }

    /// Counts a new connection from `address` (an IP address as text) against both caps; it is
    /// counted even when refused, until ``release(_:)``.
    func admit(address: String) -> (Slot, Admission) {
        let key = ClientAddressKey.key(for: address)
        let total = count.wrappingAdd(1, ordering: .relaxed).newValue
        let fromAddress = perAddress.withLock { table -> Int in
            let value = table[key, default: 0] + 1
            table[key] = value
            return value
        }
        let admission: Admission = total > limit ? .overListenerCap : fromAddress > limitPerAddress ? .overAddressCap : .admitted
        return (Slot(addressKey: key), admission)
    }

    /// Forgets a closed connection.
    func release(_ slot: Slot) {
        count.wrappingSubtract(1, ordering: .relaxed)
        perAddress.withLock { table in
            let value = table[slot.addressKey, default: 1] - 1
            table[slot.addressKey] = value > 0 ? value : nil
        }
    }

    /// Connections open now (refused ones until they are closed).
    var current: Int { count.load(ordering: .relaxed) }

    /// Connections open now from `address` (refused ones until they are closed).
    func current(from address: String) -> Int {
        perAddress.withLock { $0[ClientAddressKey.key(for: address)] ?? 0 }
    }
}
