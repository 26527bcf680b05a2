public import Payments
import PostgresNIO
public import Vault

extension PostgresStore: TransactionBindingStore {
    public func transactionsWithoutBinding(limit: Int) async throws -> [Transaction] {
        try await billingRead { connection in
            try await connection.rows("SELECT * FROM transactions WHERE binding IS NULL ORDER BY seq LIMIT \(limit)").map(Self.transaction)
        }
    }

    public func bindTransactionRows(_ bindings: [(id: String, binding: [UInt8])], audit: AuditEntry?) async throws {
        try await write { write in
            for row in bindings {
                _ = try await write.run("UPDATE transactions SET binding = \(bytea(row.binding)) WHERE id = \(row.id) AND binding IS NULL")
            }
            if let audit { try await write.appendAudit(PendingAuditEvent(audit)) }
        }
    }
}
