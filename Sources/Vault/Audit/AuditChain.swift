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
        // Each field as `<decimal byte count>:<bytes>`, appended in place (this runs on the writer
        // thread for every event: no array of fields, no copies of them).
        var message: [UInt8] = []
        message.reserveCapacity(previous.count + 9 * 6 + id.utf8.count + occurredAt.utf8.count + (merchantID?.utf8.count ?? 1)
            + actor.utf8.count + action.utf8.count + objectType.utf8.count + (objectID?.utf8.count ?? 1) + details.utf8.count + 20)
        message += previous
        func append(_ field: String) {
            var field = field
            field.withUTF8 { bytes in
                message.append(contentsOf: String(bytes.count).utf8)
                message.append(0x3A)
                message.append(contentsOf: bytes)
            }
        }
        append(String(sequence))
        append(id)
        append(occurredAt)
        append(merchantID ?? "\u{0}")
        append(actor)
        append(action)
        append(objectType)
        append(objectID ?? "\u{0}")
        append(details)
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
