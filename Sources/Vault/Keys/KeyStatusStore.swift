/// What `vault keys status` reports beyond `KeyStore`'s counts.
public protocol KeyStatusStore: Sendable {
    /// Data keys of active merchants: live, of which superseded by a newer version but still in
    /// use, and destroyed after being superseded.
    func dataKeySummary() async throws -> (live: Int, supersededLive: Int, destroyedAfterRotation: Int)
    /// The KEK version wrapping the audit key, or nil before it exists.
    func auditKeyKEKVersion() async throws -> Int?
}
