import Foundation

/// The hash chain over audit events: each event's hash covers its predecessor's hash and
/// every field of the event, so editing, inserting or deleting a row breaks the chain.
public enum AuditChain {
    /// The hash before the first event.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    /// The hash of an event given its predecessor's hash.
    public static func hash(
        previous: [UInt8], sequence: Int64, id: String, occurredAt: String, merchantID: String?, actor: String,
        action: String, objectType: String, objectID: String?, details: String
    ) -> [UInt8] {
        var message = previous
        for field in [String(sequence), id, occurredAt, merchantID ?? "\u{0}", actor, action, objectType, objectID ?? "\u{0}", details] {
            let bytes = Array(field.utf8)
            message.append(contentsOf: Array(String(bytes.count).utf8))
            message.append(0x3A)
            message.append(contentsOf: bytes)
        }
        return Digest.sha256(message)
    }

    /// Details as canonical JSON (sorted keys), the form that is stored and hashed.
    public static func canonicalDetails(_ details: [String: String]) -> String {
        CanonicalJSON.text(details)
    }
}

/// The outcome of checking the whole audit chain.
public enum AuditVerification: Sendable, Equatable {
    /// Every event links to its predecessor and the head matches.
    case intact(events: Int64)
    /// The first event (by sequence) where the chain breaks, and why.
    case broken(sequence: Int64, reason: String)
}
