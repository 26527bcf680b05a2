import Testing
import Vault

/// The binding of an audit chain names its count and head under the audit key, and the check
/// reports every way the chains found and the rows bound can disagree.
@Suite struct AuditChainBindingTests {
    private let key: SecureBytes
    private let head = [UInt8](repeating: 9, count: 32)

    init() throws {
        key = try SecureBytes.random(count: 32)
    }

    private func walked(_ chain: String, _ events: Int64, _ head: [UInt8]? = nil) -> AuditChainBinding.Walked {
        AuditChainBinding.Walked(chain: chain, events: events, head: head ?? self.head)
    }

    @Test func aBindingIsAuthenticOnlyWithItsOwnChainCountHeadAndKey() throws {
        let binding = try AuditChainBinding.make(auditKey: key, chain: "mer_a", events: 5, head: head)
        #expect(binding.isAuthentic(auditKey: key))
        #expect(!binding.isAuthentic(auditKey: try SecureBytes.random(count: 32)))
        for altered in [
            AuditChainBinding(chain: "mer_b", events: 5, head: head, mac: binding.mac),
            AuditChainBinding(chain: "mer_a", events: 4, head: head, mac: binding.mac),
            AuditChainBinding(chain: "mer_a", events: 5, head: [UInt8](repeating: 8, count: 32), mac: binding.mac),
            AuditChainBinding(chain: "mer_a", events: 5, head: head, mac: nil),
        ] {
            #expect(!altered.isAuthentic(auditKey: key))
        }
    }

    @Test func chainsAsBoundHaveNoMismatch() throws {
        let bindings = try [("mer_a", 5), ("platform", 2)].map { try AuditChainBinding.make(auditKey: key, chain: $0.0, events: Int64($0.1), head: head) }
        #expect(AuditChainBinding.mismatches(bindings: bindings, walked: [walked("mer_a", 5), walked("platform", 2)], auditKey: key).isEmpty)
    }

    @Test func everyDisagreementIsNamedWithItsChain() throws {
        let bindings = try [("gone", 3), ("short", 5), ("moved", 2)].map {
            try AuditChainBinding.make(auditKey: key, chain: $0.0, events: Int64($0.1), head: head)
        } + [AuditChainBinding(chain: "forged", events: 1, head: head, mac: [UInt8](repeating: 0, count: 32))]
        let found = AuditChainBinding.mismatches(
            bindings: bindings,
            walked: [walked("short", 4), walked("moved", 2, [UInt8](repeating: 1, count: 32)), walked("forged", 1), walked("unbound", 7)],
            auditKey: key)
        #expect(found.map(\.chain) == ["forged", "gone", "moved", "short", "unbound"])
        #expect(found[0].reason.contains("not authentic"))
        #expect(found[1].reason.contains("the whole chain was deleted"))
        #expect(found[2].reason.contains("not its bound head"))
        #expect(found[3].reason.contains("bound to 5 events and 4 remain"))
        #expect(found[4].reason.contains("binding row is gone while 7 events remain"))
        #expect(AuditChainBinding.mismatches(bindings: bindings, walked: [], auditKey: nil).count == 4, "without the key no row is authentic")
    }
}
