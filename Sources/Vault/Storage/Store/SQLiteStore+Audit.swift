import Foundation

extension SQLiteStore: AuditStore {
    public func appendAudit(_ entry: AuditEntry) async throws {
        try await database.write { connection in try connection.appendAudit(entry) }
    }

    public func auditEvents(merchantID: String?, filter: AuditFilter, before sequence: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await database.read { connection in
            var sql = "SELECT * FROM audit_events WHERE 1 = 1"
            var arguments: [any SQLiteBindable] = []
            if let merchantID {
                sql += " AND merchant_id = ?"
                arguments.append(merchantID)
            }
            var conditions = SQLiteConditions()
            conditions.add("actor = ?", filter.actor)
            conditions.add("action = ?", filter.action)
            conditions.add("object_type = ?", filter.objectType)
            conditions.add("object_id = ?", filter.objectID)
            conditions.add("occurred_at >= ?", filter.from.map(Timestamp.string))
            conditions.add("occurred_at <= ?", filter.to.map(Timestamp.string))
            conditions.add("seq < ?", sequence)
            conditions.append(to: &sql, arguments: &arguments)
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments.append(limit)
            return try connection.query(sql, arguments).map(Self.auditEvent)
        }
    }

    public func verifyAuditChain() async throws -> AuditVerification {
        try await database.read { connection in
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
                let hash = AuditChain.hash(
                    previous: previous, sequence: sequence, id: try row.string("id"), occurredAt: try row.string("occurred_at"),
                    merchantID: try row.optionalString("merchant_id"), actor: try row.string("actor"), action: try row.string("action"),
                    objectType: try row.string("object_type"), objectID: try row.optionalString("object_id"),
                    details: try row.string("details"))
                guard try row.blob("hash") == hash else {
                    broken = .broken(sequence: sequence, reason: "its contents do not match its hash (edited)")
                    return
                }
                previous = hash
                expected += 1
            }
            if let broken { return broken }
            let count = expected - 1
            let head = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
            let expectedHead = count == 0 ? nil : String(count) + ":" + Encoding.hex(previous)
            guard head == expectedHead else {
                return .broken(sequence: count + 1, reason: "the chain ends before the recorded head (events were deleted from the end)")
            }
            return .intact(events: count)
        }
    }

    static func auditEvent(_ row: SQLiteRow) throws -> AuditEvent {
        let detailsJSON = try row.string("details")
        let details = (try? JSONDecoder().decode([String: String].self, from: Data(detailsJSON.utf8))) ?? [:]
        return AuditEvent(
            sequence: try row.int64("seq"), id: try row.string("id"),
            occurredAt: Timestamp.parse(try row.string("occurred_at")) ?? Date(timeIntervalSince1970: 0),
            merchantID: try row.optionalString("merchant_id"), actor: try row.string("actor"), action: try row.string("action"),
            objectType: try row.string("object_type"), objectID: try row.optionalString("object_id"), details: details,
            hash: Encoding.hex(try row.blob("hash")))
    }
}
