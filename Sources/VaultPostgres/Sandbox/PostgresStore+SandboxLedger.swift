import Foundation
public import Payments
import PostgresNIO
import Vault

/// The sandbox gateway's ledger in the shared PostgreSQL database (migration 5), one ledger for
/// every server and runner.
///
/// A charge or card check with a key not seen before (the runner's every step) needs no
/// transaction: `decide` runs first on an empty ledger (what a new key reads: no remembered call,
/// no transaction to act on), then one autocommit statement remembers the call under its key,
/// `ON CONFLICT DO NOTHING`, and records its transaction only when the call was remembered. The
/// new charges of concurrent callers share that statement (``GroupedWrites``: every charge that
/// arrived while the previous statement ran, keys in byte order so two groups never wait on each
/// other crosswise): one round trip and one commit for the group instead of one each, which cost
/// the server about nine times the CPU per charge (measured with pgbench: see the performance
/// document). The key's unique index is the lock: of two calls with one key at once, on any
/// server, the second's insert waits for the first's commit and then inserts nothing; that call,
/// like any call whose key is already remembered (or given twice in one group), takes the locked
/// path. When the server refuses a group's statement, each of its charges is sent alone.
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
           try await sandboxCharges.write(DecidedSandboxCharge(charge, now: now)) {
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

    /// The most new charges one statement remembers; more wait for the next statement.
    static let sandboxChargesPerStatement = 256

    /// Statements of new charges running at once: while one runs, the next group gathers.
    static let sandboxChargeWritesInFlight = 2

    /// Remembers a group of new charges: one statement for the group (a group of one: its own
    /// statement), each charge alone when the server refuses the group's.
    /// - Returns: per charge, in the order given, whether its call was remembered (false: nothing
    ///   of it written; a key given twice is remembered at most once, for its first charge).
    static func rememberNewCharges(_ charges: [DecidedSandboxCharge], on primary: PostgresPrimary, logger: Logger) async
        -> [Result<Bool, any Error>] {
        var seenKeys = Set<String>(), seenTransactions = Set<String>()
        let firsts = charges.map { charge in
            seenKeys.insert(charge.call.idempotencyKey).inserted
                && (charge.recorded.map { seenTransactions.insert($0.id).inserted } ?? true)
        }
        let group = zip(charges, firsts).filter(\.1).map(\.0)
        guard group.count > 1 else { return await rememberEachAlone(charges, firsts: firsts, on: primary, logger: logger) }
        let remembered: Set<String>
        do {
            remembered = try await rememberNewChargeGroup(group, on: primary, logger: logger)
        } catch where PostgresFailure.isOfTheStatementAlone(error) {
            return await rememberEachAlone(charges, firsts: firsts, on: primary, logger: logger)
        } catch {
            return charges.map { _ in .failure(error) }
        }
        return zip(charges, firsts).map { charge, first in .success(first && remembered.contains(charge.call.idempotencyKey)) }
    }

    /// Each charge marked first in its own statement; the others (a key or transaction given twice)
    /// not remembered.
    private static func rememberEachAlone(_ charges: [DecidedSandboxCharge], firsts: [Bool], on primary: PostgresPrimary, logger: Logger) async
        -> [Result<Bool, any Error>] {
        var results: [Result<Bool, any Error>] = []
        for (charge, first) in zip(charges, firsts) {
            guard first else {
                results.append(.success(false))
                continue
            }
            do {
                results.append(.success(try await rememberNewCharge(charge, on: primary, logger: logger)))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    /// One statement for `charges` (each key and transaction id once): their calls inserted in
    /// their keys' byte order, `ON CONFLICT DO NOTHING`, and the transactions of the calls
    /// inserted. Safe to run twice (run as `idempotentWriteStatement` runs it): a second run inserts nothing.
    /// - Returns: the keys whose calls were remembered.
    private static func rememberNewChargeGroup(_ charges: [DecidedSandboxCharge], on primary: PostgresPrimary, logger: Logger) async throws
        -> Set<String> {
        var rows = PostgresRowSet([
            ("idempotency_key", "text"), ("operation", "text"), ("reference", "text"), ("parent_id", "text"), ("record", "text"),
            ("created_at", "text"), ("transaction_id", "text"), ("transaction_reference", "text"), ("transaction_parent_id", "text"),
            ("transaction_record", "text"),
        ])
        for charge in charges {
            rows.append([
                charge.call.idempotencyKey, charge.call.operation, charge.call.reference, charge.call.parentID, charge.callDocument,
                charge.now, charge.recorded?.id, charge.recorded?.reference, charge.recorded?.parentID, charge.recordedDocument,
            ])
        }
        var query = PostgresQuery(unsafeSQL: "WITH i AS ")
        rows.appendSelect(to: &query)
        query.sql += """
            , call AS (
                INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                SELECT idempotency_key, operation, reference, parent_id, record, created_at FROM i ORDER BY idempotency_key COLLATE "C"
                ON CONFLICT (idempotency_key) DO NOTHING
                RETURNING idempotency_key),
            recorded AS (
                INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                SELECT i.transaction_id, i.transaction_reference, i.transaction_parent_id, i.transaction_record, i.created_at
                FROM i JOIN call ON call.idempotency_key = i.idempotency_key
                WHERE i.transaction_id IS NOT NULL ORDER BY i.transaction_id COLLATE "C"
                ON CONFLICT (id) DO UPDATE SET record = excluded.record
                RETURNING 1)
            SELECT idempotency_key FROM call
            """
        return try await outsideTransaction(on: primary) { connection in
            Set(try await connection.rows(prepared: query, logger: logger).map { try $0.string("idempotency_key") })
        }
    }

    /// Remembers one new charge's call and records its transaction (if any) in one autocommit
    /// statement. Safe to run twice (run as `idempotentWriteStatement` runs it): a second run inserts nothing.
    /// - Returns: whether the call was remembered (false: the key was already, nothing written).
    private static func rememberNewCharge(_ charge: DecidedSandboxCharge, on primary: PostgresPrimary, logger: Logger) async throws -> Bool {
        let (call, callDocument, now) = (charge.call, charge.callDocument, charge.now)
        let query: PostgresQuery
        if let recorded = charge.recorded, let document = charge.recordedDocument {
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
        return try await outsideTransaction(on: primary) { connection in
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
