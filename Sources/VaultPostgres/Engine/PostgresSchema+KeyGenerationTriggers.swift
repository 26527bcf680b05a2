extension PostgresSchema {
    /// Every change of a key's row (but its last use) or of a merchant's row advances the key
    /// generation, whoever writes it: servers keep verified API key credentials under the
    /// generation they were read in and read it every two seconds, so none acts on a row changed
    /// since. A trigger, not each write path, so no path (nor an operator's SQL) can forget it; once
    /// per statement, so off-boarding's revocation of every key of a merchant advances it once.
    /// Inserts need none: a key is never kept before it was read.
    static let keyGenerationTriggers = PostgresMigration(id: 24, name: "key generation follows keys and merchants", statements: [
        """
        CREATE FUNCTION advance_key_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO meta (key, value) VALUES ('key_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER api_keys_advance_key_generation
        AFTER UPDATE OF id, merchant_id, role, secret_hash, created_at, revoked_at, secret_scheme, binding, label, expires_at OR DELETE
        ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION advance_key_generation()
        """,
        """
        CREATE TRIGGER merchants_advance_key_generation AFTER UPDATE OR DELETE ON merchants
        FOR EACH STATEMENT EXECUTE FUNCTION advance_key_generation()
        """,
    ])
}
