import Foundation

/// The chain over audit events: each event's MAC covers its predecessor's MAC and every field of
/// the event, so editing, inserting, deleting or reordering rows breaks the chain, and nobody
/// without the audit key (a system key wrapped under the KEK) can recompute it.
///
/// Events written before the chain was keyed (databases older than migration 13) keep their
/// unkeyed SHA-256 links (``hash(previous:sequence:id:occurredAt:merchantID:actor:action:objectType:objectID:details:)``);
/// the first keyed event's MAC covers the last of them, which anchors that prefix.
public enum AuditChain {
    /// The link before the first event.
    public static let genesis = [UInt8](repeating: 0, count: 32)
    /// Length of an event's MAC (keyed BLAKE2b-256).
    public static let macLength = 32

    /// The unkeyed SHA-256 link of an event written before the chain was keyed (legacy events only).
    public static func hash(
        previous: [UInt8], sequence: Int64, id: String, occurredAt: String, merchantID: String?, actor: String,
        action: String, objectType: String, objectID: String?, details: String
    ) -> [UInt8] {
        Digest.sha256(message(
            previous: previous, sequence: sequence, id: id, occurredAt: occurredAt, merchantID: merchantID, actor: actor, action: action,
            objectType: objectType, objectID: objectID, details: details))
    }

    /// The keyed link of an event (BLAKE2b-256 keyed with the audit key) given its predecessor's link.
    /// - Throws: `CryptoError.invalidKeyLength` for a key that is not 16...64 bytes.
    public static func mac(
        key: SecureBytes, previous: [UInt8], sequence: Int64, id: String, occurredAt: String, merchantID: String?, actor: String,
        action: String, objectType: String, objectID: String?, details: String
    ) throws -> [UInt8] {
        try KeyedHash.blake2b(
            message(
                previous: previous, sequence: sequence, id: id, occurredAt: occurredAt, merchantID: merchantID, actor: actor, action: action,
                objectType: objectType, objectID: objectID, details: details),
            key: key, length: macLength)
    }

    /// The value of `meta.audit_head`: the last event's sequence and link, and a tag over both
    /// under the audit key, so the head cannot be moved back after events are cut off the end.
    public static func headRecord(key: SecureBytes, sequence: Int64, link: [UInt8]) throws -> String {
        let text = String(sequence) + ":" + Encoding.hex(link)
        return text + ":" + Encoding.hex(try tag(key: key, label: "audit-head", text))
    }

    /// The value of `meta.audit_keyed_from` once authenticated: the first keyed sequence and its tag.
    public static func keyedFromRecord(key: SecureBytes, sequence: Int64) throws -> String {
        String(sequence) + ":" + Encoding.hex(try tag(key: key, label: "audit-keyed-from", String(sequence)))
    }

    private static func tag(key: SecureBytes, label: String, _ text: String) throws -> [UInt8] {
        try KeyedHash.blake2b(Array((label + "/" + text).utf8), key: key, length: macLength)
    }

    /// Each field as `<decimal byte count>:<bytes>` after the previous link, appended in place
    /// (this runs on the writer thread for every event: no array of fields, no copies of them).
    private static func message(
        previous: [UInt8], sequence: Int64, id: String, occurredAt: String, merchantID: String?, actor: String,
        action: String, objectType: String, objectID: String?, details: String
    ) -> [UInt8] {
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
        return message
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
