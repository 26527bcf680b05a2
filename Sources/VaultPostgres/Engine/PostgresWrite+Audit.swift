public import Foundation
import PostgresNIO
public import Vault

/// The head of one audit chain inside a write transaction.
struct AuditChainHead {
    var sequence: Int64
    var hash: [UInt8]
    var merchantID: String?
    /// Whether this transaction appended to the chain (its head row needs writing before COMMIT).
    var extended: Bool
    /// The head as the transaction locked it: the chain's binding row advances only from there.
    var startSequence: Int64
    var startHash: [UInt8]

    /// A head as locked, before the transaction extends it.
    init(locked sequence: Int64, hash: [UInt8], merchantID: String?) {
        self.sequence = sequence
        self.hash = hash
        self.merchantID = merchantID
        extended = false
        startSequence = sequence
        startHash = hash
    }

    /// This head extended by one event.
    func extended(to sequence: Int64, link: [UInt8]) -> AuditChainHead {
        var next = self
        next.sequence = sequence
        next.hash = link
        next.extended = true
        return next
    }
}

/// Audit chains on PostgreSQL: one per merchant, one (`platform`) for events without a merchant,
/// each with up to `overflowChains` more (`<merchant>/1` ... `/19`) taken only by writers that find
/// the ones before locked by another writer, so one merchant's concurrent writes are not all
/// queued on one head row: as many chains as a server's default pool has connections, so the
/// writers of one server never wait for a head.
public enum PostgresAuditChains {
    /// The chain of events that belong to no merchant. Merchant ids start with `mer_`, so no
    /// merchant's chain can take this name.
    public static let platform = "platform"

    /// How many chains a merchant (or `platform`) may have beside its first.
    public static let overflowChains = 19

    /// The first chain an event of `merchantID` belongs to (its merchant's id, or `platform`).
    public static func chain(of merchantID: String?) -> String {
        merchantID ?? platform
    }

    /// Every chain of `base` (``chain(of:)``): `base` first, then `base/1` ... in that order.
    public static func chains(of base: String) -> [String] {
        [base] + (1...overflowChains).map { "\(base)/\($0)" }
    }
}

extension PostgresWrite {
    /// Appends an audit event inside this transaction, extending its merchant's chain.
    public func appendAudit(_ entry: AuditEntry, now: Date = Date()) async throws {
        try await appendAudit(PendingAuditEvent(entry, at: now))
    }

    /// Links a prepared audit event to a chain of its merchant (or `platform`) and inserts it now
    /// (`appendAudit(_:)` defers this to just before COMMIT).
    ///
    /// A head row of the merchant is locked at the transaction's first event of that merchant
    /// (`lockedChainHead`), so writers of one merchant on any server take its chains in turn and
    /// writers of different merchants never meet. The MAC covers the event's merchant id, which
    /// its chain belongs to, and its place in the chain.
    /// - Throws: `PostgresStoreError.misuse` when no keyring is open over the store; server errors.
    func linkAudit(_ event: PendingAuditEvent) async throws {
        let (chain, head) = try await lockedChainHead(PostgresAuditChains.chain(of: event.merchantID), merchantID: event.merchantID)
        let key = try await auditChainKey(creating: true)!
        let sequence = head.sequence + 1
        let link = try AuditChain.mac(
            key: key, previous: head.hash, sequence: sequence, id: event.id, occurredAt: event.occurredAt, merchantID: event.merchantID,
            actor: event.actor, action: event.action, objectType: event.objectType, objectID: event.objectID, details: event.details)
        try await run(
            """
            INSERT INTO audit_events (id, chain, chain_seq, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
            VALUES (\(event.id), \(chain), \(sequence), \(event.occurredAt), \(event.merchantID), \(event.actor), \(event.action),
                \(event.objectType), \(event.objectID), \(event.details), \(bytea(head.hash)), \(bytea(link)))
            """)
        chainHeads[chain] = head.extended(to: sequence, link: link)
    }

    /// Links prepared audit events to their chains and inserts them in one statement, in the order
    /// given (`insertPendingAudits` calls it with the heads of their chains already locked): the
    /// links are computed here as `linkAudit(_:)` computes them one by one, and every event is
    /// inserted by one `INSERT ... SELECT`, so the chains come out exactly as from one event at a
    /// time. The same statement writes the head of every chain the transaction extended (as
    /// `writeChainHeads` would after it): one round trip for the events and the heads.
    /// - Throws: `PostgresStoreError.misuse` when no keyring is open over the store; server errors.
    func linkAudits(_ events: [PendingAuditEvent]) async throws {
        guard !events.isEmpty else { return }
        var locked: [String: String] = [:]
        for event in events {
            let base = PostgresAuditChains.chain(of: event.merchantID)
            locked[base] = try await lockedChainHead(base, merchantID: event.merchantID).chain
        }
        let key = try await auditChainKey(creating: true)!
        var heads = chainHeads
        var rows = PostgresRowSet([
            ("id", "text"), ("chain", "text"), ("chain_seq", "bigint"), ("occurred_at", "text"), ("merchant_id", "text"), ("actor", "text"),
            ("action", "text"), ("object_type", "text"), ("object_id", "text"), ("details", "text"), ("prev_hash", "bytea"), ("hash", "bytea"),
        ])
        for event in events {
            let base = PostgresAuditChains.chain(of: event.merchantID)
            guard let chain = locked[base], let head = heads[chain] else {
                throw PostgresStoreError.misuse("no audit chain head of \(base) was locked")
            }
            let sequence = head.sequence + 1
            let link = try AuditChain.mac(
                key: key, previous: head.hash, sequence: sequence, id: event.id, occurredAt: event.occurredAt, merchantID: event.merchantID,
                actor: event.actor, action: event.action, objectType: event.objectType, objectID: event.objectID, details: event.details)
            rows.append([
                event.id, chain, String(sequence), event.occurredAt, event.merchantID, event.actor, event.action, event.objectType, event.objectID,
                event.details, Encoding.hex(head.hash), Encoding.hex(link),
            ])
            heads[chain] = head.extended(to: sequence, link: link)
        }
        let extended = heads.filter(\.value.extended).sorted { $0.key < $1.key }
        let records = try extended.map { chain, head in
            try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: head.sequence, link: head.hash)
        }
        let chains = extended.map { $0.key }
        let sequences = extended.map { $0.value.sequence }
        let links = extended.map { ByteBuffer(bytes: $0.value.hash) }
        let bindings = try extended.map { chain, head in
            ByteBuffer(bytes: try AuditChainBinding.make(auditKey: key, chain: chain, events: head.sequence, head: head.hash).mac ?? [])
        }
        let startSequences = extended.map { $0.value.startSequence }
        let startLinks = extended.map { ByteBuffer(bytes: $0.value.startHash) }
        var statement: PostgresQuery = """
            WITH heads AS (
                UPDATE audit_chains c SET last_seq = h.last_seq, last_hash = h.last_hash, head = h.head
                FROM unnest(\(chains)::text[], \(sequences)::bigint[], \(links)::bytea[], \(records)::text[]) AS h(chain, last_seq, last_hash, head)
                WHERE c.chain = h.chain
                RETURNING 1
            ), bound AS (
                SELECT * FROM unnest(\(chains)::text[], \(sequences)::bigint[], \(links)::bytea[], \(bindings)::bytea[],
                    \(startSequences)::bigint[], \(startLinks)::bytea[]) AS u(chain, events, head, mac, start_events, start_head)
            ), advanced AS (
                \(unescaped: AuditChainBindingSQL.advance)
            ), created AS (
                \(unescaped: AuditChainBindingSQL.create)
            ), events AS (
                INSERT INTO audit_events (id, chain, chain_seq, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
                SELECT id, chain, chain_seq, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash FROM
            """
        rows.appendSelect(to: &statement)
        statement.sql += " AS a ORDER BY a.ord RETURNING 1) SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM heads) AS heads,"
            + " (SELECT count(*) FROM advanced) + (SELECT count(*) FROM created) AS bindings"
        try await run(prepared: statement)
        for (chain, _) in extended { heads[chain]?.extended = false }
        chainHeads = heads
    }

    /// A chain of `base` (a merchant's id, or `platform`) and its head, locked for this transaction
    /// (the same one for every event of `base` in it).
    ///
    /// The first chain of `base` not locked by another writer (`FOR UPDATE SKIP LOCKED`, in name
    /// order: without contention always `base` itself); when every one is locked, the next chain
    /// of `base` not yet created (`INSERT ... ON CONFLICT DO UPDATE` creates and locks it), and
    /// when all exist, one of them at random, waiting for it. Only the last case waits, and a
    /// transaction waits for a head only while holding heads of bases before `base` in name order,
    /// so head locks cannot deadlock.
    func lockedChainHead(_ base: String, merchantID: String?) async throws -> (chain: String, head: AuditChainHead) {
        if let chain = chainShards[base], let head = chainHeads[chain] { return (chain, head) }
        let names = PostgresAuditChains.chains(of: base)
        var locked = try await row(
            prepared: """
            SELECT chain, last_seq, last_hash FROM audit_chains WHERE chain = ANY(\(names)::text[])
            ORDER BY chain COLLATE "C" LIMIT 1 FOR UPDATE SKIP LOCKED
            """)
        if locked == nil {
            let existing = Set(try await rows("SELECT chain FROM audit_chains WHERE chain = ANY(\(names)::text[])").map { try $0.string("chain") })
            let chain = names.first { !existing.contains($0) } ?? names.randomElement() ?? base
            locked = try await row(
                """
                INSERT INTO audit_chains (chain, merchant_id, last_seq, last_hash) VALUES (\(chain), \(merchantID), 0, \(bytea(AuditChain.genesis)))
                ON CONFLICT (chain) DO UPDATE SET last_seq = audit_chains.last_seq
                RETURNING chain, last_seq, last_hash
                """)
        }
        guard let locked else { throw PostgresStoreError.misuse("no audit chain head of \(base) was returned") }
        let chain = try locked.string("chain")
        let head = AuditChainHead(locked: try locked.int64("last_seq"), hash: try locked.blob("last_hash"), merchantID: merchantID)
        chainHeads[chain] = head
        chainShards[base] = chain
        return (chain, head)
    }

    /// Writes the head of every chain this transaction extended, with its keyed head record (so
    /// events deleted from a chain's end are detected), and advances the chain's binding row.
    func writeChainHeads() async throws {
        let extended = chainHeads.filter(\.value.extended)
        guard !extended.isEmpty, let key = try await auditChainKey(creating: false) else { return }
        for (chain, head) in extended.sorted(by: { $0.key < $1.key }) {
            let record = try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: head.sequence, link: head.hash)
            let binding = try AuditChainBinding.make(auditKey: key, chain: chain, events: head.sequence, head: head.hash)
            // The head and the chain's binding row in one statement (one round trip).
            try await run(
                """
                WITH heads AS (
                    UPDATE audit_chains SET last_seq = \(head.sequence), last_hash = \(bytea(head.hash)), head = \(record) WHERE chain = \(chain)
                    RETURNING 1
                ), bound AS (
                    SELECT \(chain)::text AS chain, \(head.sequence)::bigint AS events, \(bytea(head.hash))::bytea AS head,
                        \(bytea(binding.mac ?? []))::bytea AS mac, \(head.startSequence)::bigint AS start_events,
                        \(bytea(head.startHash))::bytea AS start_head
                ), advanced AS (
                    \(unescaped: AuditChainBindingSQL.advance)
                ), created AS (
                    \(unescaped: AuditChainBindingSQL.create)
                )
                SELECT (SELECT count(*) FROM heads) AS heads
                """)
            chainHeads[chain]?.extended = false
        }
    }

    /// The audit key: the store's unwrapped copy, else the stored key, else (when `creating`) a
    /// new one inserted in this transaction (a concurrent creator's key wins; this one then uses it).
    func auditChainKey(creating: Bool) async throws -> SecureBytes? {
        if let auditKey { return auditKey }
        if let cached = store.auditKeys.cached {
            auditKey = cached
            return cached
        }
        if let stored = try await storedAuditKey() {
            auditKey = stored
            store.auditKeys.remember(stored)
            return stored
        }
        guard creating else { return nil }
        let custodian = try store.auditKeys.custodian()
        let key = try SecureBytes.random(count: 32)
        let (kekVersion, wrapped) = try custodian.wrapSystemKey(key, purpose: PostgresAuditKeys.purpose)
        let inserted = try await run(
            """
            INSERT INTO system_keys (purpose, kek_version, wrapped_key, created_at)
            VALUES (\(PostgresAuditKeys.purpose), \(kekVersion), \(bytea(wrapped)), \(Timestamp.string(Date())))
            ON CONFLICT (purpose) DO NOTHING RETURNING 1
            """)
        if inserted == 0 {
            guard let stored = try await storedAuditKey() else { throw PostgresStoreError.misuse("the audit key vanished") }
            auditKey = stored
            store.auditKeys.remember(stored)
            return stored
        }
        auditKey = key
        createdAuditKey = true
        return key
    }

    private func storedAuditKey() async throws -> SecureBytes? {
        guard let row = try await row("SELECT kek_version, wrapped_key FROM system_keys WHERE purpose = \(PostgresAuditKeys.purpose)") else {
            return nil
        }
        return try store.auditKeys.custodian().unwrapSystemKey(
            try row.blob("wrapped_key"), purpose: PostgresAuditKeys.purpose, kekVersion: try row.int("kek_version"))
    }
}

/// How a transaction's `bound` rows (chain, events, head, mac, start_events, start_head) move the
/// chains' binding rows: a row advances only from the head the transaction locked, and a chain the
/// transaction started from nothing gets a row only if it has none. So a chain deleted whole (or
/// cut) and then appended to keeps its old binding, and `audit verify` still reports it; and a
/// binding row deleted while events remain is not re-created by the next append. A row that trails
/// the locked head through an event of its chain (events a build before bindings appended) is
/// brought up too.
enum AuditChainBindingSQL {
    static let advance = """
        UPDATE audit_chain_bindings b SET events = u.events, head = u.head, mac = u.mac FROM bound u
        WHERE b.chain = u.chain AND u.start_events > 0 AND ((b.events = u.start_events AND b.head = u.start_head)
            OR (b.events > 0 AND b.events < u.start_events AND EXISTS (
                SELECT 1 FROM audit_events e WHERE e.chain = b.chain AND e.chain_seq = b.events AND e.hash = b.head)))
        RETURNING 1
        """
    static let create = """
        INSERT INTO audit_chain_bindings (chain, events, head, mac) SELECT chain, events, head, mac FROM bound WHERE start_events = 0
        ON CONFLICT (chain) DO NOTHING RETURNING 1
        """
}

extension PostgresAuditChains {
    /// `<sequence>:<link hex>:<tag hex>` with a tag under the audit key over the chain's name,
    /// sequence and link.
    static func headRecord(key: SecureBytes, chain: String, sequence: Int64, link: [UInt8]) throws -> String {
        // AuditChain.headRecord tags "<sequence>:<link>"; the chain's name is bound by prefixing it
        // to the sequence inside the tagged text and stripping it again from the stored record.
        let tagged = try AuditChain.headRecord(key: key, sequence: sequence, link: link + Array(chain.utf8))
        let parts = tagged.split(separator: ":")
        return "\(sequence):\(Encoding.hex(link)):\(parts[2])"
    }
}
