import Vault

/// The last event of the audit chain: its sequence and hash.
struct AuditHead: Equatable {
    /// The head of an empty chain.
    static let genesis = AuditHead(sequence: 0, hash: AuditChain.genesis)

    /// Sequence of the last event (0 when there is none).
    var sequence: Int64
    /// Its hash.
    var hash: [UInt8]
}
