import Foundation
public import Payments
import Vault

/// The sandbox gateway's ledger in the vault's SQLite database (migration 26), shared by every
/// process that opens the file: a call is one write transaction, and SQLite's single writer (in
/// this process and across processes) serializes it with every other.
///
/// A new charge (no transaction to act on) is decided before the write, on the caller's task, and
/// written with the new charges of other callers in one shared write body (``GroupedWrites``):
/// inside the writer it is two inserts, the first of which finds the key already remembered
/// when it is (then nothing is written and the call runs again the whole way, deciding from what
/// the key remembers). Every other call reads, decides and writes inside one write body.
extension SQLiteStore: SandboxLedgerStore {
    public func sandboxCall(idempotencyKey: String, transactionIDs: [String],
                            _ decide: @escaping @Sendable (inout SandboxLedgerWork) -> GatewayResult) async throws -> GatewayResult {
        let now = Timestamp.string(Date())
        if let charge = SandboxNewCharge.decide(idempotencyKey: idempotencyKey, transactionIDs: transactionIDs, decide),
           try await sandboxCharges.write(DecidedSandboxCharge(charge, now: now)) {
            return charge.result
        }
        return try await database.write { connection in
            let remembered = try connection.queryOne("SELECT * FROM sandbox_calls WHERE idempotency_key = \(idempotencyKey)")
                .map(Self.sandboxCall)
            var loaded = try transactionIDs.compactMap { try Self.sandboxTransaction(connection, id: $0) }
            for parentID in Set(loaded.compactMap(\.parentID)) where !loaded.contains(where: { $0.id == parentID }) {
                if let parent = try Self.sandboxTransaction(connection, id: parentID) { loaded.append(parent) }
            }
            var work = SandboxLedgerWork(idempotencyKey: idempotencyKey, remembered: remembered, transactions: loaded)
            let result = decide(&work)
            for transaction in work.updated {
                try connection.run(
                    "UPDATE sandbox_transactions SET record = \(SandboxLedgerCoding.document(transaction)) WHERE id = \(transaction.id)")
            }
            for transaction in work.recorded {
                try connection.run(
                    """
                    INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                    VALUES (\(transaction.id), \(transaction.reference), \(transaction.parentID),
                        \(SandboxLedgerCoding.document(transaction)), \(now))
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record
                    """)
            }
            if let call = work.newCall {
                try connection.run(
                    """
                    INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
                    VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID),
                        \(SandboxLedgerCoding.document(call)), \(now))
                    """)
            }
            return result
        }
    }

    public func sandboxTransaction(id: String) async throws -> SandboxTransaction? {
        try await database.read { connection in try Self.sandboxTransaction(connection, id: id) }
    }

    public func sandboxTransactions(reference: String) async throws -> [SandboxTransaction] {
        try await database.read { connection in
            try connection.query("SELECT record FROM sandbox_transactions WHERE reference = \(reference) ORDER BY seq")
                .map { try SandboxLedgerCoding.transaction(try $0.string("record")) }
        }
    }

    public func sandboxCalls(reference: String) async throws -> [SandboxRememberedCall] {
        try await database.read { connection in
            try connection.query("SELECT * FROM sandbox_calls WHERE reference = \(reference) ORDER BY seq").map(Self.sandboxCall)
        }
    }

    public func sandboxTransactionCount() async throws -> Int {
        try await database.read { connection in
            try connection.queryOne("SELECT count(*) AS n FROM sandbox_transactions")?.int("n") ?? 0
        }
    }

    /// Remembers a decided new charge's call and records its transaction, unless the key is
    /// already remembered.
    /// - Returns: whether the call was remembered (false: nothing was written).
    static func remember(_ charge: DecidedSandboxCharge, on connection: SQLiteConnection) throws -> Bool {
        let call = charge.call
        try connection.run(
            """
            INSERT INTO sandbox_calls (idempotency_key, operation, reference, parent_id, record, created_at)
            VALUES (\(call.idempotencyKey), \(call.operation), \(call.reference), \(call.parentID), \(charge.callDocument), \(charge.now))
            ON CONFLICT (idempotency_key) DO NOTHING
            """)
        guard connection.changes > 0 else { return false }
        if let transaction = charge.recorded {
            try connection.run(
                """
                INSERT INTO sandbox_transactions (id, reference, parent_id, record, created_at)
                VALUES (\(transaction.id), \(transaction.reference), \(transaction.parentID), \(charge.recordedDocument), \(charge.now))
                ON CONFLICT (id) DO UPDATE SET record = excluded.record
                """)
        }
        return true
    }

    private static func sandboxTransaction(_ connection: SQLiteConnection, id: String) throws -> SandboxTransaction? {
        try connection.queryOne("SELECT record FROM sandbox_transactions WHERE id = \(id)")
            .map { try SandboxLedgerCoding.transaction(try $0.string("record")) }
    }

    private static func sandboxCall(_ row: SQLiteRow) throws -> SandboxRememberedCall {
        try SandboxLedgerCoding.call(idempotencyKey: try row.string("idempotency_key"), operation: try row.string("operation"),
                                     reference: try row.string("reference"), parentID: try row.optionalString("parent_id"),
                                     document: try row.string("record"))
    }
}
