/// The binding of one audit chain: its name, how many events it holds and its last link, under a
/// keyed MAC, stored one row per chain (`audit_chain_bindings`) and advanced in the same commit as
/// every append to the chain.
///
/// A chain's events are MAC-linked to each other, but a walk only sees the chains it finds: an
/// insider who deleted every event of a chain (a merchant's, or one of its overflow chains) left
/// nothing to walk. The binding row says the chain exists and how long it is, so `vault audit
/// verify` reports a bound chain whose events are gone or shortened, a row whose count or head no
/// longer matches, and events whose binding row was removed. One row per chain, so appends of
/// different chains never meet on it (a single row over every chain would be a hot row). An
/// insider who deletes a chain's events *and* its binding row leaves no trace in the database: the
/// heads kept elsewhere (`vault audit verify --expect-head`) are the defence there.
///
/// The MAC is keyed BLAKE2b-256 under a subkey (`crypto_kdf`, context ``context``) of the audit
/// key, a system key wrapped under the master key; it covers the chain's name, the count and the
/// head, each length-prefixed. The storage engines store the row; this type makes and checks it.
public struct AuditChainBinding: Sendable, Equatable {
    /// The `crypto_kdf` context of the MAC key.
    public static let context = "auchain1"
    /// The name of SQLite's one chain (PostgreSQL names its chains after their merchants).
    public static let singleChain = "all"

    /// The chain's name.
    public var chain: String
    /// How many events the chain holds.
    public var events: Int64
    /// The link (MAC) of its last event.
    public var head: [UInt8]
    /// The MAC over the three; nil for a row a migration copied from an earlier build's head,
    /// which start-up binds once (``AuditChainBindingStore/bindLegacyAuditChains()``).
    public var mac: [UInt8]?

    /// A stored row.
    public init(chain: String, events: Int64, head: [UInt8], mac: [UInt8]?) {
        self.chain = chain
        self.events = events
        self.head = head
        self.mac = mac
    }

    /// The binding of `chain` with `events` events ending in `head`, under `auditKey`.
    /// - Throws: crypto errors.
    public static func make(auditKey: SecureBytes, chain: String, events: Int64, head: [UInt8]) throws -> AuditChainBinding {
        AuditChainBinding(chain: chain, events: events, head: head, mac: try mac(auditKey: auditKey, chain: chain, events: events, head: head))
    }

    /// Whether the row is the binding of its values under `auditKey`: false for an unbound or altered row.
    public func isAuthentic(auditKey: SecureBytes) -> Bool {
        guard let mac, let expected = try? Self.mac(auditKey: auditKey, chain: chain, events: events, head: head) else { return false }
        return constantTimeEquals(expected, mac)
    }

    private static func mac(auditKey: SecureBytes, chain: String, events: Int64, head: [UInt8]) throws -> [UInt8] {
        let key = try SubkeyDerivation.derive(from: auditKey, id: 1, context: context)
        var message: [UInt8] = []
        for field in [Array(chain.utf8), Array(String(events).utf8), head] {
            message += Array(String(field.count).utf8) + [0x3A] + field + [0x0A]
        }
        return try KeyedHash.blake2b(message, key: key, length: 32)
    }

    /// What a walk of one chain found: its event count and last link.
    public struct Walked: Sendable, Equatable {
        /// The chain's name.
        public var chain: String
        /// Events found in order.
        public var events: Int64
        /// The last event's link (the genesis link when there is none).
        public var head: [UInt8]
        /// The links of earlier events, by their place in the chain: the engine reads the one at
        /// the place a binding that trails the chain names (``trailingPlaces(bindings:walked:)``).
        public var links: [Int64: [UInt8]]

        /// A walk's result.
        public init(chain: String, events: Int64, head: [UInt8], links: [Int64: [UInt8]] = [:]) {
            self.chain = chain
            self.events = events
            self.head = head
            self.links = links
        }
    }

    /// The places whose link ``mismatches(bindings:walked:auditKey:)`` needs, by chain: where each
    /// binding that trails its walked chain (fewer events bound than walked) says the chain passed.
    public static func trailingPlaces(bindings: [AuditChainBinding], walked: [Walked]) -> [String: Int64] {
        let walks = Dictionary(walked.map { ($0.chain, $0.events) }, uniquingKeysWith: { first, _ in first })
        var places: [String: Int64] = [:]
        for binding in bindings where binding.events > 0 && binding.events < (walks[binding.chain] ?? 0) {
            places[binding.chain] = binding.events
        }
        return places
    }

    /// The chains whose binding and events disagree, each with why (in chain order): a binding
    /// that is not authentic, a bound chain whose events are gone, fewer than bound, more than
    /// bound without passing through the bound head, or ending elsewhere, and a chain with events
    /// but no binding row. Empty when every chain is bound as found.
    ///
    /// A chain longer than its binding whose event at the bound place has the bound link is
    /// accepted: the events after it carry keyed links, which only a holder of the audit key
    /// writes, so they were appended by a vault process that did not advance the binding: a server
    /// of a build before chain bindings, during a rolling upgrade. The next append by this build
    /// brings the binding up to the chain's end. Events cut from such a chain's end, down to the
    /// bound place, are not noticed by the binding until then (the heads kept outside are).
    public static func mismatches(bindings: [AuditChainBinding], walked: [Walked], auditKey: SecureBytes?) -> [(chain: String, reason: String)] {
        var found: [(chain: String, reason: String)] = []
        let walks = Dictionary(walked.map { ($0.chain, $0) }, uniquingKeysWith: { first, _ in first })
        let bound = Dictionary(bindings.map { ($0.chain, $0) }, uniquingKeysWith: { first, _ in first })
        for chain in Set(walks.keys).union(bound.keys).sorted() {
            let walk = walks[chain]
            guard let binding = bound[chain] else {
                if let walk, walk.events > 0 { found.append((chain, "the chain's binding row is gone while \(walk.events) events remain")) }
                continue
            }
            guard let auditKey, binding.isAuthentic(auditKey: auditKey) else {
                found.append((chain, "the chain's binding row is not authentic (altered, or written without the audit key)"))
                continue
            }
            let events = walk?.events ?? 0
            if events == 0 {
                found.append((chain, "the chain is bound to \(binding.events) events and none remain (the whole chain was deleted)"))
            } else if events > binding.events, let passed = walk?.links[binding.events], constantTimeEquals(passed, binding.head) {
                continue
            } else if events != binding.events {
                found.append((chain, "the chain is bound to \(binding.events) events and \(events) remain"))
            } else if let walk, !constantTimeEquals(walk.head, binding.head) {
                found.append((chain, "the chain's last event is not its bound head"))
            }
        }
        return found
    }
}
