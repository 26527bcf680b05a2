public import Payments
public import Vault

extension SQLiteStore: TransactionBindingStore {
    public func transactionsWithoutBinding(limit: Int) async throws -> [Transaction] {
        try await database.read { connection in
            try connection.query("SELECT * FROM transactions WHERE binding IS NULL ORDER BY seq LIMIT \(limit)").map(Self.transaction)
        }
    }

    public func bindTransactionRows(_ bindings: [(id: String, binding: [UInt8])], audit: AuditEntry?) async throws {
        try await database.write { connection in
            for row in bindings {
                try connection.run("UPDATE transactions SET binding = \(row.binding) WHERE id = \(row.id) AND binding IS NULL")
            }
            if let audit { try connection.appendAudit(audit) }
        }
    }
}
