import Foundation
public import Payments
import PostgresNIO
import Vault

/// The sandbox gateway's ledger in the shared PostgreSQL database (migration 5), one ledger for
/// every server and runner.
///
/// A charge or card check with a key not seen before (the runner's every step) is one statement
/// of its own, with no transaction around it: `decide` runs first on an empty ledger (what a new
/// key reads: no remembered call, no transaction to act on), then one autocommit statement
/// remembers the call under its key, `ON CONFLICT DO NOTHING`, and records its transaction only
/// when the call was remembered. The key's unique index is the lock: of two calls with one key
/// at once, on any server, the second's insert waits for the first's commit and then inserts
/// nothing; that call, like any call whose key is already remembered, takes the locked path.
///
/// The locked path (every follow-up, and a charge whose key is already remembered) is one
/// transaction that first takes a transaction-scoped advisory lock on its idempotency key and
/// then locks the transactions it acts on, in id order (`FOR UPDATE`), so follow-ups of one
/// transaction never interleave. A call it finds remembered is answered from the ledger; when a
/// new charge of the same key commits between its read and its insert, its insert of the call
/// changes nothing, the transaction is rolled back (with the transaction it recorded) and the
/// call is decided again from the remembered one.
extension PostgresStore: SandboxLedgerStore {
    public func sandboxCall(idempotencyKey: String, transactionIDs: [String],
                            _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult {
        let now = Timestamp.string(Date())
        if let charge = SandboxNewCharge.decide(idempotencyKey: idempotencyKey, transactionIDs: transactionIDs, decide),
           try await rememberNewCharge(charge.call, recording: charge.recorded, now: now) {
            return charge.result
        }
        for _ in 0..<Self.sandboxCallTries - 1 {
            do {
                return try await lockedSandboxCall(idempotencyKey: idempotencyKey, transactionIDs: transactionIDs, now: now, decide)
            } catch is SandboxCallRaced {
                continue
            }
        }
        return try await lockedSandboxCall(idempotencyKey: idempotencyKey, transactionIDs: transactionIDs, now: now, decide)
    }

    /// How many times the locked path runs when a new charge of its key keeps committing first
    /// (the second run finds that charge remembered).
    static let sandboxCallTries = 3

    /// The locked path's insert of its call found the key remembered meanwhile (a new charge of
    /// the same key committed after its read): the transaction is rolled back and run again.
    struct SandboxCallRaced: Error {}

    /// Remembers a new charge's call and records its transaction (if any) in one autocommit
    /// statement. Safe to run twice (`idempotentWriteStatement`): a second run inserts nothing.
    /// - Returns: whether the call was remembered (false: the key was already, nothing written).
    private func rememberNewCharge(_ call: SandboxRememberedCall, recording recorded: SandboxTransaction?, now: String) async throws -> Bool {
        let callDocument = SandboxLedgerCoding.document(call)
        let query: PostgresQuery
        if let recorded {
            let document = SandboxLedgerCoding.document(recorded)
            query = """
                WITH call AS (
                    INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                    VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID), \(callDocument), \(now))
                    ON CONFLICT (idempotency_key) DO NOTHING
                    RETURNING seq),
                recorded AS (
                    INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                    SELECT \(recorded.id), \(recorded.reference), \(recorded.parentID), \(document), \(now) FROM call
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record
                    RETURNING 1)
                SELECT seq FROM call
                """
        } else {
            query = """
                INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID), \(callDocument), \(now))
                ON CONFLICT (idempotency_key) DO NOTHING
                RETURNING seq
                """
        }
        return try await idempotentWriteStatement { connection in
            try await connection.run(prepared: query, logger: logger) > 0
        }
    }

    /// One call in one transaction, serialized with every other locked call of its key and of
    /// the transactions it acts on.
    /// - Throws: ``SandboxCallRaced`` when its call was remembered by another meanwhile.
    private func lockedSandboxCall(idempotencyKey: String, transactionIDs: [String], now: String,
                                   _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult {
        let lockName = "sandbox_call:" + idempotencyKey
        return try await write { transaction in
            try await transaction.run(prepared: "SELECT pg_advisory_xact_lock(hashtextextended(\(lockName), 0))")
            let remembered = try await transaction.row(prepared: "SELECT * FROM sandbox_calls WHERE idempotency_key = \(idempotencyKey)")
                .map(Self.sandboxCall)
            // The parents first (a parent never changes), then every row locked in id order.
            var ids = Set(transactionIDs)
            for id in transactionIDs {
                if let parentID = try await transaction.row(prepared: "SELECT parent_id FROM sandbox_transactions WHERE id = \(id)")?
                    .optionalString("parent_id") {
                    ids.insert(parentID)
                }
            }
            var loaded: [SandboxTransaction] = []
            for id in ids.sorted() {
                if let row = try await transaction.row(prepared: "SELECT record FROM sandbox_transactions WHERE id = \(id) FOR UPDATE") {
                    loaded.append(try SandboxLedgerCoding.transaction(try row.string("record")))
                }
            }
            var work = SandboxLedgerWork(idempotencyKey: idempotencyKey, remembered: remembered, transactions: loaded)
            let result = decide(&work)
            if let call = work.newCall {
                // First, so that a call remembered meanwhile by a new charge of the same key (which
                // takes no advisory lock) rolls this back before anything else is written.
                let document = SandboxLedgerCoding.document(call)
                let inserted = try await transaction.run(
                    prepared: """
                    INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                    VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID), \(document), \(now))
                    ON CONFLICT (idempotency_key) DO NOTHING
                    RETURNING 1
                    """)
                guard inserted > 0 else { throw SandboxCallRaced() }
            }
            for changed in work.updated {
                let document = SandboxLedgerCoding.document(changed)
                try await transaction.run(prepared: "UPDATE sandbox_transactions SET record = \(document) WHERE id = \(changed.id)")
            }
            for recorded in work.recorded {
                let document = SandboxLedgerCoding.document(recorded)
                try await transaction.run(
                    prepared: """
                    INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                    VALUES (\(recorded.id), \(recorded.reference), \(recorded.parentID), \(document), \(now))
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record
                    """)
            }
            return result
        }
    }

    public func sandboxTransaction(id: String) async throws -> SandboxTransaction? {
        try await readStatement { connection in
            try await connection.row("SELECT record FROM sandbox_transactions WHERE id = \(id)", logger: logger)
                .map { try SandboxLedgerCoding.transaction(try $0.string("record")) }
        }
    }

    public func sandboxTransactions(reference: String) async throws -> [SandboxTransaction] {
        try await readStatement { connection in
            try await connection.rows("SELECT record FROM sandbox_transactions WHERE reference = \(reference) ORDER BY seq", logger: logger)
                .map { try SandboxLedgerCoding.transaction(try $0.string("record")) }
        }
    }

    public func sandboxCalls(reference: String) async throws -> [SandboxRememberedCall] {
        try await readStatement { connection in
            try await connection.rows("SELECT * FROM sandbox_calls WHERE reference = \(reference) ORDER BY seq", logger: logger)
                .map(Self.sandboxCall)
        }
    }

    public func sandboxTransactionCount() async throws -> Int {
        try await readStatement { connection in
            try await connection.row("SELECT count(*)::bigint AS n FROM sandbox_transactions", logger: logger)?.int("n") ?? 0
        }
    }

    private static func sandboxCall(_ row: PostgresRowReader) throws -> SandboxRememberedCall {
        try SandboxLedgerCoding.call(idempotencyKey: try row.string("idempotency_key"), operation: try row.string("operation"),
                                     reference: try row.string("reference"), parentID: try row.optionalString("parent_id"),
                                     document: try row.string("record"))
    }
}
