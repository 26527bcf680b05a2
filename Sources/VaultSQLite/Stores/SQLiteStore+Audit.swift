import Foundation
public import Vault

extension SQLiteStore: AuditStore, AuditHeadStore, AuditChainBindingStore {
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await database.write { connection in try connection.appendAudit(entry) }
    }

    public func auditEvents(merchantID: String?, filter: AuditFilter, before sequence: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM audit_events WHERE 1 = 1"
            sql.and(merchantID) { "merchant_id = \($0)" }
            sql.and(filter.actor) { "actor = \($0)" }
            sql.and(filter.action) { "action = \($0)" }
            sql.and(filter.objectType) { "object_type = \($0)" }
            sql.and(filter.objectID) { "object_id = \($0)" }
            sql.and(filter.from.map(Timestamp.string)) { "occurred_at >= \($0)" }
            sql.and(filter.to.map(Timestamp.string)) { "occurred_at <= \($0)" }
            sql.and(sequence) { "seq < \($0)" }
            sql += " ORDER BY seq DESC LIMIT \(limit)"
            return try connection.query(sql).map(Self.auditEvent)
        }
    }

    public func verifyAuditChain() async throws -> AuditVerification {
        try await database.read { connection in
            let key = try connection.auditKeySlot.cachedKey(on: connection)
            var keyedFrom: Int64 = 1
            if let record = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_keyed_from'")?.string("value") {
                guard let key, let sequence = record.split(separator: ":").first.flatMap({ Int64($0) }),
                    constantTimeEquals(Array(record.utf8), Array(try AuditChain.keyedFromRecord(key: key, sequence: sequence).utf8))
                else {
                    return .broken(sequence: 1, reason: "the recorded start of the keyed chain is not authentic")
                }
                keyedFrom = sequence
            }
            let walk = try AuditChainWalk(connection: connection, key: key, keyedFrom: keyedFrom)
            if let broken = walk.verification { return broken }
            let (count, previous) = (walk.count, walk.last)
            guard keyedFrom == 1 || keyedFrom <= count else {
                return .broken(sequence: count + 1, reason: "the chain ends before its keyed part begins (events were deleted from the end)")
            }
            let head = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
            guard count > 0 else {
                guard head == nil else { return .broken(sequence: 1, reason: "the recorded head names events that are gone") }
                return try Self.checkBinding(on: connection, key: key, events: 0, head: previous)
            }
            guard let key, let head, constantTimeEquals(Array(head.utf8), Array(try AuditChain.headRecord(key: key, sequence: count, link: previous).utf8))
            else {
                return .broken(sequence: count + 1, reason: "the chain ends before the recorded head (events were deleted from the end)")
            }
            return try Self.checkBinding(on: connection, key: key, events: count, head: previous)
        }
    }

    /// The chain checked against its binding row (`AuditChainBinding`): intact when they agree.
    private static func checkBinding(on connection: SQLiteConnection, key: SecureBytes?, events: Int64, head: [UInt8]) throws -> AuditVerification {
        let bindings = try connection.query("SELECT chain, events, head, mac FROM audit_chain_bindings").map { row in
            AuditChainBinding(chain: try row.string("chain"), events: try row.int64("events"), head: try row.blob("head"), mac: try row.optionalBlob("mac"))
        }
        var walked = [AuditChainBinding.Walked(chain: AuditChainBinding.singleChain, events: events, head: head)]
        // A binding that trails the chain (events a build before bindings appended): the link at its place.
        if let place = AuditChainBinding.trailingPlaces(bindings: bindings, walked: walked)[AuditChainBinding.singleChain],
            let link = try connection.queryOne("SELECT hash FROM audit_events WHERE seq = \(place)")?.blob("hash")
        {
            walked[0].links[place] = link
        }
        guard let mismatch = AuditChainBinding.mismatches(bindings: bindings, walked: walked, auditKey: key).first else { return .intact(events: events) }
        return .broken(sequence: events + 1, reason: "chain \(mismatch.chain): \(mismatch.reason)")
    }

    /// Binds, once, the chain an earlier build wrote (its row copied unbound by the migration): when
    /// the recorded head (`meta.audit_head`, tagged under the audit key) names the row's count and
    /// link, the row gets its MAC. A row whose head does not match stays unbound, and `audit verify`
    /// reports it.
    /// - Returns: how many chains were bound (0 or 1).
    public func bindLegacyAuditChains() async throws -> Int {
        try await database.write { connection in
            guard let row = try connection.queryOne("SELECT chain, events, head FROM audit_chain_bindings WHERE mac IS NULL LIMIT 1"),
                let key = try connection.auditKeySlot.load(on: connection),
                let recorded = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
            else { return 0 }
            let (chain, events, head) = (try row.string("chain"), try row.int64("events"), try row.blob("head"))
            guard chain == AuditChainBinding.singleChain,
                constantTimeEquals(Array(recorded.utf8), Array(try AuditChain.headRecord(key: key, sequence: events, link: head).utf8))
            else { return 0 }
            try AuditChainWriter.bindUnbound(try AuditChainBinding.make(auditKey: key, chain: chain, events: events, head: head), on: connection)
            return 1
        }
    }

    /// Refuses a chain that has events but no key, unless `upgradingUnkeyedChain` (the operator's
    /// `vault audit upgrade`), which lets the key be created over the unkeyed events once they verify.
    /// - Throws: `AuditChainError.unkeyedEvents`.
    public func checkAuditKey(upgradingUnkeyedChain: Bool) async throws {
        let (hasKey, events) = try await database.read { connection in
            (try connection.queryOne("SELECT 1 AS one FROM system_keys WHERE purpose = 'audit'") != nil,
             try connection.queryOne("SELECT count(*) AS n FROM audit_events")?.int64("n") ?? 0)
        }
        guard !hasKey, events > 0 else { return }
        guard upgradingUnkeyedChain else { throw AuditChainError.unkeyedEvents(count: events) }
        auditKeys.allowUpgradingUnkeyedChain()
    }

    /// Creates the audit chain's key if the database has none, in a write of its own, and records
    /// an `audit.key_created` event: on a database whose events were written unkeyed (before
    /// migration 13, upgraded by the operator) that event's MAC covers their last link, anchoring them.
    /// - Throws: `AuditChainError`, `SQLiteError`.
    public func ensureAuditKey() async throws {
        try await database.write { connection in
            guard try connection.auditChainKey(creating: false) == nil else { return }
            let legacy = try connection.queryOne("SELECT count(*) AS n FROM audit_events")?.int64("n") ?? 0
            _ = try connection.auditChainKey(creating: true)
            try connection.appendAudit(AuditEntry(
                merchantID: nil, actor: "system", action: "audit.key_created", objectType: "audit_key", objectID: nil,
                details: ["unkeyedEvents": String(legacy)]))
        }
    }

    public func auditChainHolds(_ head: String) async throws -> Bool? {
        let parts = head.split(separator: ":")
        guard parts.count == 2, let sequence = Int64(parts[0]), let link = try? Encoding.fromHex(String(parts[1])) else { return nil }
        return try await database.read { connection in
            try connection.queryOne("SELECT count(*) AS n FROM audit_events WHERE seq = \(sequence) AND hash = \(link)")?.int64("n") == 1
        }
    }

    /// The recorded head of the chain (`<sequence>:<link>` in hex), for an external anchor; nil when empty.
    public func auditChainHead() async throws -> String? {
        try await database.read { connection in
            guard let value = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value") else { return nil }
            return value.split(separator: ":").prefix(2).joined(separator: ":")
        }
    }

    static func auditEvent(_ row: SQLiteRow) throws -> AuditEvent {
        let detailsJSON = try row.string("details")
        let details = (try? JSONDecoder().decode([String: String].self, from: Data(detailsJSON.utf8))) ?? [:]
        let stored = try row.table("audit_events")
        return AuditEvent(
            sequence: try row.int64("seq"), id: stored.id, occurredAt: try stored.instant("occurred_at"),
            merchantID: try row.optionalString("merchant_id"), actor: try row.string("actor"), action: try row.string("action"),
            objectType: try row.string("object_type"), objectID: try row.optionalString("object_id"), details: details,
            hash: Encoding.hex(try row.blob("hash")))
    }
}

/// One pass over the chain in sequence order: events before `keyedFrom` are checked with the
/// unkeyed SHA-256 link, the rest with the MAC under `key`.
struct AuditChainWalk {
    /// The first break, or nil.
    let verification: AuditVerification?
    /// Events checked before the first break.
    let count: Int64
    /// The last good link.
    let last: [UInt8]

    init(connection: SQLiteConnection, key: SecureBytes?, keyedFrom: Int64) throws {
        var previous = AuditChain.genesis
        var expected: Int64 = 1
        var broken: AuditVerification?
        try connection.forEachRow("SELECT * FROM audit_events ORDER BY seq") { row in
            guard broken == nil else { return }
            let sequence = try row.int64("seq")
            guard sequence == expected else {
                broken = .broken(sequence: expected, reason: "event \(expected) is missing")
                return
            }
            guard try row.blob("prev_hash") == previous else {
                broken = .broken(sequence: sequence, reason: "does not link to the event before it")
                return
            }
            let (id, occurredAt, merchantID) = (try row.string("id"), try row.string("occurred_at"), try row.optionalString("merchant_id"))
            let (actor, action, objectType) = (try row.string("actor"), try row.string("action"), try row.string("object_type"))
            let (objectID, details) = (try row.optionalString("object_id"), try row.string("details"))
            let link: [UInt8]
            if sequence < keyedFrom {
                link = AuditChain.hash(
                    previous: previous, sequence: sequence, id: id, occurredAt: occurredAt, merchantID: merchantID, actor: actor,
                    action: action, objectType: objectType, objectID: objectID, details: details)
            } else if let key {
                link = try AuditChain.mac(
                    key: key, previous: previous, sequence: sequence, id: id, occurredAt: occurredAt, merchantID: merchantID, actor: actor,
                    action: action, objectType: objectType, objectID: objectID, details: details)
            } else {
                broken = .broken(sequence: sequence, reason: "the audit key is missing, so the event cannot be authenticated")
                return
            }
            guard constantTimeEquals(try row.blob("hash"), link) else {
                broken = .broken(sequence: sequence, reason: "its contents do not match its hash (edited)")
                return
            }
            previous = link
            expected += 1
        }
        verification = broken
        count = expected - 1
        last = previous
    }
}
