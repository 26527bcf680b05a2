extension PostgresSchema {
    /// Migration 1: the Vault module's tables, as the SQLite schema's final state has them (after
    /// its migrations 1-24): the same column names and value formats (instants as the fixed-width
    /// text of `Timestamp.string`, integers as bigint, blobs as bytea, flags as 0/1), so the same
    /// domain rows come back. What differs:
    /// - `seq` columns are identities (SQLite's rowid aliases);
    /// - the audit log is one chain per merchant plus one for platform events (`audit_chains` holds
    ///   each chain's head, locked by the writer; `audit_events.chain`/`chain_seq` place an event);
    /// - `schema_migrations` (created by the migrator) replaces SQLite's `user_version`-like table.
    static let vault = PostgresMigration(id: 1, name: "vault: keys, merchants, api keys, audit chains, idempotency, secure cards, custom fields, webhooks", statements: [
        """
        CREATE TABLE meta (
            key text PRIMARY KEY,
            value text NOT NULL
        )
        """,
        """
        CREATE TABLE kek_versions (
            version bigint PRIMARY KEY,
            check_value bytea NOT NULL,
            created_at text NOT NULL,
            retired_at text
        )
        """,
        """
        CREATE TABLE system_keys (
            purpose text PRIMARY KEY CHECK (purpose = 'audit'),
            kek_version bigint NOT NULL REFERENCES kek_versions(version),
            wrapped_key bytea NOT NULL,
            created_at text NOT NULL
        )
        """,
        """
        CREATE TABLE merchants (
            id text PRIMARY KEY,
            seq bigint NOT NULL UNIQUE,
            name text NOT NULL UNIQUE,
            status text NOT NULL CHECK (status IN ('active', 'offboarded')),
            gateway text NOT NULL,
            gateway_url text,
            gateway_credentials bytea,
            time_zone text NOT NULL,
            callback_url text,
            verify_on_registration bigint NOT NULL DEFAULT 1,
            allow_credit bigint NOT NULL DEFAULT 0,
            created_at text NOT NULL,
            updated_at text NOT NULL
        )
        """,
        """
        CREATE TABLE merchant_keys (
            merchant_id text NOT NULL REFERENCES merchants(id),
            purpose text NOT NULL CHECK (purpose IN ('data', 'fingerprint', 'webhook')),
            version bigint NOT NULL,
            kek_version bigint NOT NULL REFERENCES kek_versions(version),
            wrapped_key bytea,
            created_at text NOT NULL,
            destroyed_at text,
            PRIMARY KEY (merchant_id, purpose, version)
        )
        """,
        "CREATE INDEX merchant_keys_by_kek ON merchant_keys(kek_version)",
        """
        CREATE TABLE api_keys (
            id text PRIMARY KEY,
            merchant_id text NOT NULL REFERENCES merchants(id),
            role text NOT NULL CHECK (role IN ('admin', 'readonly', 'runner')),
            secret_hash bytea NOT NULL,
            created_at text NOT NULL,
            revoked_at text
        )
        """,
        "CREATE INDEX api_keys_by_merchant ON api_keys(merchant_id)",
        """
        CREATE TABLE audit_chains (
            chain text PRIMARY KEY,
            merchant_id text,
            last_seq bigint NOT NULL,
            last_hash bytea NOT NULL,
            head text
        )
        """,
        """
        CREATE TABLE audit_events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            chain text NOT NULL REFERENCES audit_chains(chain),
            chain_seq bigint NOT NULL,
            occurred_at text NOT NULL,
            merchant_id text,
            actor text NOT NULL,
            action text NOT NULL,
            object_type text NOT NULL,
            object_id text,
            details text NOT NULL,
            prev_hash bytea NOT NULL,
            hash bytea NOT NULL,
            UNIQUE (chain, chain_seq)
        )
        """,
        "CREATE INDEX audit_events_by_merchant ON audit_events(merchant_id, seq)",
        """
        CREATE TABLE idempotency_keys (
            merchant_id text NOT NULL REFERENCES merchants(id),
            key text NOT NULL,
            request_hash bytea NOT NULL,
            state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
            status_code bigint,
            response_body bytea,
            created_at text NOT NULL,
            request_scheme bigint NOT NULL DEFAULT 0,
            key_version bigint,
            secure_card_id text,
            PRIMARY KEY (merchant_id, key)
        )
        """,
        "CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at)",
        "CREATE INDEX idempotency_keys_legacy ON idempotency_keys(merchant_id) WHERE request_scheme = 0",
        "CREATE INDEX idempotency_keys_by_card ON idempotency_keys(merchant_id, secure_card_id) WHERE secure_card_id IS NOT NULL",
        """
        CREATE TABLE custom_field_definitions (
            merchant_id text PRIMARY KEY REFERENCES merchants(id),
            definitions text NOT NULL,
            updated_at text NOT NULL
        )
        """,
        """
        CREATE TABLE secure_cards (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            merchant_id text NOT NULL REFERENCES merchants(id),
            merchant_reference text NOT NULL,
            status text NOT NULL CHECK (status IN ('active', 'deleted')),
            card_type text NOT NULL,
            masked_number text NOT NULL,
            expiry_month bigint NOT NULL,
            expiry_year bigint NOT NULL,
            entry_mode text NOT NULL,
            fingerprint text NOT NULL,
            key_version bigint NOT NULL,
            sealed_card bytea,
            sealed_details bytea,
            verification text,
            created_at text NOT NULL,
            updated_at text NOT NULL,
            deleted_at text,
            purged_at text,
            metadata_bound bigint NOT NULL DEFAULT 0,
            name_indexed bigint NOT NULL DEFAULT 0
        )
        """,
        "CREATE UNIQUE INDEX secure_cards_live_reference ON secure_cards(merchant_id, merchant_reference) WHERE status = 'active'",
        "CREATE INDEX secure_cards_by_merchant ON secure_cards(merchant_id, seq)",
        "CREATE INDEX secure_cards_by_fingerprint ON secure_cards(merchant_id, fingerprint)",
        "CREATE INDEX secure_cards_by_key_version ON secure_cards(merchant_id, key_version)",
        "CREATE INDEX secure_cards_unbound ON secure_cards(seq) WHERE metadata_bound = 0 AND sealed_card IS NOT NULL",
        "CREATE INDEX secure_cards_unindexed_names ON secure_cards(seq) WHERE name_indexed = 0 AND sealed_card IS NOT NULL",
        """
        CREATE TABLE secure_card_names (
            merchant_id text NOT NULL REFERENCES merchants(id),
            token_mac bytea NOT NULL,
            secure_card_id text NOT NULL REFERENCES secure_cards(id),
            PRIMARY KEY (merchant_id, token_mac, secure_card_id)
        )
        """,
        "CREATE INDEX secure_card_names_by_card ON secure_card_names(secure_card_id)",
        """
        CREATE TABLE webhook_events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            merchant_id text NOT NULL REFERENCES merchants(id),
            type text NOT NULL,
            payload text NOT NULL,
            status text NOT NULL CHECK (status IN ('pending', 'delivered', 'expired')),
            attempts bigint NOT NULL DEFAULT 0,
            next_attempt_at text NOT NULL,
            lease_until text,
            last_error text,
            created_at text NOT NULL,
            delivered_at text,
            expires_at text NOT NULL
        )
        """,
        "CREATE INDEX webhook_events_due ON webhook_events(status, next_attempt_at)",
        "CREATE INDEX webhook_events_by_merchant ON webhook_events(merchant_id, seq)",
    ])
}
