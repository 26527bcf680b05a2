import PostgresNIO
public import Vault

/// The key generation as one row of `meta`, as on SQLite: advanced by the key-changing
/// commands in one atomic statement, read by every server every ``Keyring/generationCheckInterval``.
extension PostgresStore: KeyGenerationStore {
    /// One statement outside a transaction (no `BEGIN` and `COMMIT` around a single read): every
    /// server asks every few seconds, beside the requests it serves.
    public func keyGeneration() async throws -> Int64 {
        try await readStatement { connection in
            try await connection.row("SELECT value FROM meta WHERE key = 'key_generation'", logger: logger)
                .flatMap { Int64(try $0.string("value")) } ?? 0
        }
    }

    public func advanceKeyGeneration() async throws -> Int64 {
        try await write { transaction in
            let row = try await transaction.row(
                """
                INSERT INTO meta (key, value) VALUES ('key_generation', '1')
                ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text
                RETURNING value
                """)
            return try row.flatMap { Int64(try $0.string("value")) } ?? 0
        }
    }
}

extension PostgresRequestLimits {
    /// Limits over `store`'s database, naming subjects with `keyring`'s request-limit key.
    public convenience init(store: PostgresStore, rules: Rules, keyring: Keyring) {
        self.init(client: store.client, rules: rules, subjectKey: { try keyring.requestLimitKey() }, logger: store.logger)
    }
}
