import PostgresNIO
import Vault

extension PostgresAuditChains {
    /// The chain of the audit events copied from a SQLite vault (`vault migrate --from sqlite:PATH`).
    ///
    /// SQLite keeps one chain for every merchant, ordered by `seq`, each link a MAC over its event
    /// with that event's own merchant id. Copied as stored, the events keep their links and MACs
    /// (the same audit key), so they stay one chain here: `chain_seq` is the SQLite `seq` and the
    /// verifier takes each event's merchant from its row instead of from the chain. No writer
    /// extends it (a writer takes only chains named after a merchant or `platform`); events written
    /// after the move go to the merchants' own chains. Merchant ids start with `mer_`, so no
    /// merchant's chain can take this name.
    public static let importedFromSQLite = "sqlite"
}

extension PostgresWrite {
    /// Records the head of the chain imported from SQLite (``PostgresAuditChains/importedFromSQLite``)
    /// in this transaction, before its events are inserted: its last sequence and link, and the keyed
    /// head record that makes events cut from its end detectable, as every chain's head does.
    /// Its binding (`AuditChainBinding`, count and last link under the audit key) is written too.
    ///
    /// The audit key must already be in the database (copied with the other system keys) and a
    /// keyring open over the store to unwrap it.
    /// - Throws: `PostgresStoreError.misuse` without an audit key or keyring; server errors.
    public func recordImportedAuditChainHead(sequence: Int64, link: [UInt8]) async throws {
        guard let key = try await auditChainKey(creating: false) else {
            throw PostgresStoreError.misuse("the audit key must be copied before the audit chain's head")
        }
        let chain = PostgresAuditChains.importedFromSQLite
        let record = try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: sequence, link: link)
        try await run(
            """
            INSERT INTO audit_chains (chain, merchant_id, last_seq, last_hash, head)
            VALUES (\(chain), NULL, \(sequence), \(bytea(link)), \(record))
            """)
        let binding = try AuditChainBinding.make(auditKey: key, chain: chain, events: sequence, head: link)
        try await run(
            """
            INSERT INTO audit_chain_bindings (chain, events, head, mac)
            VALUES (\(chain), \(sequence), \(bytea(link)), \(bytea(binding.mac ?? [])))
            """)
    }
}
