import Foundation
import PostgresNIO
public import Vault

/// One audit chain's verification (`vault audit verify` reports each).
public struct AuditChainReport: Sendable, Equatable {
    /// The chain: a merchant id, or `platform`.
    public var chain: String
    /// Intact with its event count, or the first break (`sequence` is the place in the chain).
    public var verification: AuditVerification
}

extension PostgresStore: AuditStore, AuditChainBindingStore {
    public func appendAudit(_ entry: AuditEntry) async throws {
        let event = PendingAuditEvent(entry)
        try await write { transaction in try await transaction.appendAudit(event) }
    }

    public func auditEvents(merchantID: String?, filter: AuditFilter, before sequence: Int64?, limit: Int) async throws -> [AuditEvent] {
        var builder = PostgresQueryBuilder("SELECT * FROM audit_events WHERE true")
        builder.and({ "merchant_id = \($0)" }, merchantID)
        builder.and({ "actor = \($0)" }, filter.actor)
        builder.and({ "action = \($0)" }, filter.action)
        builder.and({ "object_type = \($0)" }, filter.objectType)
        builder.and({ "object_id = \($0)" }, filter.objectID)
        builder.and({ "occurred_at >= \($0)" }, filter.from.map(Timestamp.string))
        builder.and({ "occurred_at <= \($0)" }, filter.to.map(Timestamp.string))
        builder.and({ "seq < \($0)" }, sequence)
        builder.append(" ORDER BY seq DESC LIMIT \(builder.bind(limit))")
        let query = builder.query
        return try await read { connection in
            try await connection.rows(query, logger: logger).map(Self.auditEvent)
        }
    }

    /// Verifies every chain (``auditChainReports()``): intact with the total number of events, or
    /// the first broken chain's break, its reason naming the chain.
    public func verifyAuditChain() async throws -> AuditVerification {
        var total: Int64 = 0
        for report in try await auditChainReports() {
            switch report.verification {
            case .intact(let events): total += events
            case .broken(let sequence, let reason): return .broken(sequence: sequence, reason: "chain \(report.chain): \(reason)")
            }
        }
        return .intact(events: total)
    }

    /// Walks every audit chain (a merchant's, its overflow chains, `platform` for events of none, the
    /// chain copied from a SQLite vault) in one snapshot and
    /// reports each: links, MACs under the audit key, the chain's recorded head (events deleted from
    /// its end), events whose merchant is not their chain's, and events of no known chain.
    public func auditChainReports() async throws -> [AuditChainReport] {
        let stored = try await read { connection in
            try await connection.row("SELECT kek_version, wrapped_key FROM system_keys WHERE purpose = 'audit'", logger: logger)
                .map { (try $0.blob("wrapped_key"), try $0.int("kek_version")) }
        }
        var key = auditKeys.cached
        if key == nil, let (wrapped, kekVersion) = stored {
            key = try auditKeys.custodian().unwrapSystemKey(wrapped, purpose: PostgresAuditKeys.purpose, kekVersion: kekVersion)
            if let key { auditKeys.remember(key) }
        }
        return try await read { connection in
            let chains = try await connection.rows("SELECT * FROM audit_chains ORDER BY chain", logger: logger)
            var reports: [AuditChainReport] = []
            var walked: [AuditChainBinding.Walked] = []
            for chain in chains {
                let name = try chain.string("chain")
                let (verification, walk) = try await AuditChainVerifier(
                    chain: name, merchantID: try chain.optionalString("merchant_id"), key: key, recordedHead: try chain.optionalString("head"),
                    recordedSequence: try chain.int64("last_seq"))
                    .walk(connection, logger: logger)
                reports.append(AuditChainReport(chain: name, verification: verification))
                walked.append(walk)
            }
            // Every chain against its binding row: a chain deleted whole (events and head row) is
            // still bound, and events whose binding row was removed are named.
            let bindings = try await connection.rows("SELECT chain, events, head, mac FROM audit_chain_bindings", logger: logger).map { row in
                AuditChainBinding(chain: try row.string("chain"), events: try row.int64("events"), head: try row.blob("head"), mac: try row.optionalBlob("mac"))
            }
            // A binding that trails its chain (events a build before bindings appended): the link at its place.
            for (chain, place) in AuditChainBinding.trailingPlaces(bindings: bindings, walked: walked) {
                guard let index = walked.firstIndex(where: { $0.chain == chain }),
                    let link = try await connection.row(
                        "SELECT hash FROM audit_events WHERE chain = \(chain) AND chain_seq = \(place)", logger: logger)?.blob("hash")
                else { continue }
                walked[index].links[place] = link
            }
            for mismatch in AuditChainBinding.mismatches(bindings: bindings, walked: walked, auditKey: key) {
                let events = walked.first { $0.chain == mismatch.chain }?.events ?? 0
                reports.append(AuditChainReport(chain: mismatch.chain, verification: .broken(sequence: events + 1, reason: mismatch.reason)))
            }
            let orphans = try await connection.row(
                "SELECT min(e.seq) AS seq FROM audit_events e LEFT JOIN audit_chains c ON c.chain = e.chain WHERE c.chain IS NULL", logger: logger)
            if let orphan = try orphans?.optionalInt64("seq") {
                reports.append(AuditChainReport(chain: "?", verification: .broken(sequence: orphan, reason: "an event belongs to no recorded chain")))
            }
            return reports
        }
    }

    /// Refuses a database with audit events but no audit key (the key row was deleted: its chains
    /// could be recomputed without it). PostgreSQL databases never held unkeyed chains, so there is
    /// nothing to upgrade.
    /// - Throws: `AuditChainError.unkeyedEvents`.
    public func checkAuditKey(upgradingUnkeyedChain: Bool) async throws {
        let (hasKey, events) = try await read { connection in
            (try await connection.row("SELECT 1 AS one FROM system_keys WHERE purpose = 'audit'", logger: logger) != nil,
             try await connection.row("SELECT count(*) AS n FROM audit_events", logger: logger)?.int64("n") ?? 0)
        }
        guard !hasKey, events > 0 else { return }
        throw AuditChainError.unkeyedEvents(count: events)
    }

    /// Creates the audit chain's key if the database has none and records `audit.key_created`
    /// (servers starting together: one key wins, see `PostgresWrite.auditChainKey`).
    public func ensureAuditKey() async throws {
        try await write { transaction in
            guard try await transaction.auditChainKey(creating: false) == nil else { return }
            _ = try await transaction.auditChainKey(creating: true)
            guard transaction.createdAuditKey else { return }
            try await transaction.appendAudit(AuditEntry(
                merchantID: nil, actor: "system", action: "audit.key_created", objectType: "audit_key", objectID: nil,
                details: ["unkeyedEvents": "0"]))
        }
    }

    /// Binds, once, the chains an earlier build wrote (rows migration 18 copied without a MAC): a
    /// row gets its MAC when the chain's head record in `audit_chains`, tagged under the audit key,
    /// names the row's count and link. A row that does not match stays unbound (`audit verify`
    /// reports it); a row an append advanced meanwhile has its MAC already and is left alone.
    public func bindLegacyAuditChains() async throws -> Int {
        try await write { transaction in
            let unbound = try await transaction.rows(
                """
                SELECT b.chain, b.events, b.head, c.head AS recorded FROM audit_chain_bindings b JOIN audit_chains c ON c.chain = b.chain
                WHERE b.mac IS NULL ORDER BY b.chain
                """)
            guard !unbound.isEmpty, let key = try await transaction.auditChainKey(creating: false) else { return 0 }
            var bound = 0
            for row in unbound {
                let (chain, events, head) = (try row.string("chain"), try row.int64("events"), try row.blob("head"))
                guard let recorded = try row.optionalString("recorded"),
                    constantTimeEquals(
                        Array(recorded.utf8), Array(try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: events, link: head).utf8))
                else { continue }
                let binding = try AuditChainBinding.make(auditKey: key, chain: chain, events: events, head: head)
                bound += try await transaction.run(
                    """
                    UPDATE audit_chain_bindings SET mac = \(bytea(binding.mac ?? []))
                    WHERE chain = \(chain) AND mac IS NULL AND events = \(events) AND head = \(bytea(head)) RETURNING 1
                    """)
            }
            return bound
        }
    }

    /// The recorded heads of the chains, for an external anchor: `<chain>=<sequence>:<link>` per
    /// chain, comma-separated in chain order; nil when there are no events.
    public func auditChainHolds(_ head: String) async throws -> Bool? {
        let named = head.split(separator: "=", maxSplits: 1)
        guard named.count == 2 else { return nil }
        let parts = named[1].split(separator: ":")
        guard parts.count == 2, let sequence = Int64(parts[0]), let link = try? Encoding.fromHex(String(parts[1])) else { return nil }
        let chain = String(named[0])
        return try await read { connection in
            try await connection.row(
                "SELECT count(*) AS n FROM audit_events WHERE chain = \(chain) AND chain_seq = \(sequence) AND hash = \(bytea(link))", logger: logger
            )?.int64("n") == 1
        }
    }

    public func auditChainHead() async throws -> String? {
        let heads = try await read { connection in
            try await connection.rows("SELECT chain, head FROM audit_chains WHERE head IS NOT NULL ORDER BY chain", logger: logger).map {
                try $0.string("chain") + "=" + $0.string("head").split(separator: ":").prefix(2).joined(separator: ":")
            }
        }
        return heads.isEmpty ? nil : heads.joined(separator: ",")
    }

    static func auditEvent(_ row: PostgresRowReader) throws -> AuditEvent {
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

/// One pass over one chain in chain order.
struct AuditChainVerifier {
    let chain: String
    let merchantID: String?
    let key: SecureBytes?
    let recordedHead: String?
    let recordedSequence: Int64

    /// The chain's verification, and what the walk found (for its binding row).
    func walk(_ connection: PostgresConnection, logger: Logger) async throws -> (AuditVerification, AuditChainBinding.Walked) {
        var previous = AuditChain.genesis
        var expected: Int64 = 1
        let verification = try await walk(connection, logger: logger, previous: &previous, expected: &expected)
        return (verification, AuditChainBinding.Walked(chain: chain, events: expected - 1, head: previous))
    }

    private func walk(
        _ connection: PostgresConnection, logger: Logger, previous: inout [UInt8], expected: inout Int64
    ) async throws -> AuditVerification {
        // The chain copied from SQLite holds every merchant's events, each MAC over its own merchant.
        let imported = chain == PostgresAuditChains.importedFromSQLite
        let rows = try await connection.checkedQuery(
            "SELECT * FROM audit_events WHERE chain = \(chain) ORDER BY chain_seq", logger: logger)
        for try await raw in rows {
            let row = PostgresRowReader(raw)
            let sequence = try row.int64("chain_seq")
            guard sequence == expected else { return .broken(sequence: expected, reason: "event \(expected) is missing") }
            let eventMerchantID = imported ? try row.optionalString("merchant_id") : merchantID
            guard try row.optionalString("merchant_id") == eventMerchantID else {
                return .broken(sequence: sequence, reason: "the event belongs to another merchant's chain (moved)")
            }
            guard try row.blob("prev_hash") == previous else { return .broken(sequence: sequence, reason: "does not link to the event before it") }
            guard let key else { return .broken(sequence: sequence, reason: "the audit key is missing, so the event cannot be authenticated") }
            let link = try AuditChain.mac(
                key: key, previous: previous, sequence: sequence, id: try row.string("id"), occurredAt: try row.string("occurred_at"),
                merchantID: eventMerchantID, actor: try row.string("actor"), action: try row.string("action"),
                objectType: try row.string("object_type"), objectID: try row.optionalString("object_id"), details: try row.string("details"))
            guard constantTimeEquals(try row.blob("hash"), link) else {
                return .broken(sequence: sequence, reason: "its contents do not match its hash (edited)")
            }
            previous = link
            expected += 1
        }
        let count = expected - 1
        guard count > 0 else {
            return recordedSequence == 0 ? .intact(events: 0) : .broken(sequence: 1, reason: "the recorded head names events that are gone")
        }
        guard let key, let recordedHead,
            constantTimeEquals(
                Array(recordedHead.utf8),
                Array(try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: count, link: previous).utf8))
        else {
            return .broken(sequence: count + 1, reason: "the chain ends before the recorded head (events were deleted from the end)")
        }
        return .intact(events: count)
    }
}
