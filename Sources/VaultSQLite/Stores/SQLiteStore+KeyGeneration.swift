public import Vault

/// The key generation as one row of `meta`: advanced by the key-changing commands,
/// read by every process every few seconds (``Keyring/generationCheckInterval``).
extension SQLiteStore: KeyGenerationStore {
    /// The `meta` key of the generation.
    static let keyGenerationMetaKey = "key_generation"

    public func keyGeneration() async throws -> Int64 {
        try await database.read { connection in
            try connection.queryOne("SELECT value FROM meta WHERE key = \(Self.keyGenerationMetaKey)")
                .flatMap { Int64(try $0.string("value")) } ?? 0
        }
    }

    public func advanceKeyGeneration() async throws -> Int64 {
        try await database.write { connection in
            let current = try connection.queryOne("SELECT value FROM meta WHERE key = \(Self.keyGenerationMetaKey)")
                .flatMap { Int64(try $0.string("value")) } ?? 0
            try connection.run(
                """
                INSERT INTO meta (key, value) VALUES (\(Self.keyGenerationMetaKey), \(String(current + 1))) ON CONFLICT (key) DO UPDATE
                    SET value = excluded.value
                """)
            return current + 1
        }
    }
}
