import Foundation
public import Payments
import PostgresNIO
import Vault

/// The sandbox gateway's ledger in the shared PostgreSQL database (migration 5), one ledger for
/// every server and runner. A call is one transaction that first takes a transaction-scoped
/// advisory lock on its idempotency key (two calls with one key, on any server, run one after the
/// other, so the second answers the first's result) and then locks the transactions it acts on,
/// in id order (`FOR UPDATE`), so follow-ups of one transaction never interleave.
extension PostgresStore: SandboxLedgerStore {
    public func sandboxCall(idempotencyKey: String, transactionIDs: [String],
                            _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult {
        let now = Timestamp.string(Date())
        let lockName = "sandbox_call:" + idempotencyKey
        return try await write { transaction in
            try await transaction.run("SELECT pg_advisory_xact_lock(hashtextextended(\(lockName), 0))")
            let remembered = try await transaction.row("SELECT * FROM sandbox_calls WHERE idempotency_key = \(idempotencyKey)")
                .map(Self.sandboxCall)
            // The parents first (a parent never changes), then every row locked in id order.
            var ids = Set(transactionIDs)
            for id in transactionIDs {
                if let parentID = try await transaction.row("SELECT parent_id FROM sandbox_transactions WHERE id = \(id)")?
                    .optionalString("parent_id") {
                    ids.insert(parentID)
                }
            }
            var loaded: [SandboxTransaction] = []
            for id in ids.sorted() {
                if let row = try await transaction.row("SELECT record FROM sandbox_transactions WHERE id = \(id) FOR UPDATE") {
                    loaded.append(try SandboxLedgerCoding.transaction(try row.string("record")))
                }
            }
            var work = SandboxLedgerWork(idempotencyKey: idempotencyKey, remembered: remembered, transactions: loaded)
            let result = decide(&work)
            for changed in work.updated {
                let document = SandboxLedgerCoding.document(changed)
                try await transaction.run("UPDATE sandbox_transactions SET record = \(document) WHERE id = \(changed.id)")
            }
            for recorded in work.recorded {
                let document = SandboxLedgerCoding.document(recorded)
                try await transaction.run(
                    """
                    INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                    VALUES (\(recorded.id), \(recorded.reference), \(recorded.parentID), \(document), \(now))
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record
                    """)
            }
            if let call = work.newCall {
                let document = SandboxLedgerCoding.document(call)
                try await transaction.run(
                    """
                    INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                    VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID), \(document), \(now))
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
