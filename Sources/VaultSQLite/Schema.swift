/// The numbered migrations of the vault's SQLite database, applied in order at start-up.
///
/// A migration is never edited once released; changes come as new migrations.
public enum Schema {
    /// Every migration this build knows, oldest first.
    public static let migrations: [Migration] = [
        Migration(id: 1, name: "keys, merchants, api keys, audit, idempotency", sql: """
            CREATE TABLE meta (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) STRICT;

            CREATE TABLE kek_versions (
                version INTEGER PRIMARY KEY,
                check_value BLOB NOT NULL,
                created_at TEXT NOT NULL,
                retired_at TEXT
            ) STRICT;

            CREATE TABLE merchants (
                id TEXT PRIMARY KEY,
                seq INTEGER NOT NULL UNIQUE,
                name TEXT NOT NULL UNIQUE,
                status TEXT NOT NULL CHECK (status IN ('active', 'offboarded')),
                gateway TEXT NOT NULL,
                gateway_url TEXT,
                gateway_credentials BLOB,
                time_zone TEXT NOT NULL,
                callback_url TEXT,
                verify_on_registration INTEGER NOT NULL DEFAULT 1,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            ) STRICT;

            CREATE TABLE merchant_keys (
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                purpose TEXT NOT NULL CHECK (purpose IN ('data', 'fingerprint', 'webhook')),
                version INTEGER NOT NULL,
                kek_version INTEGER NOT NULL REFERENCES kek_versions(version),
                wrapped_key BLOB,
                created_at TEXT NOT NULL,
                destroyed_at TEXT,
                PRIMARY KEY (merchant_id, purpose, version)
            ) STRICT;
            CREATE INDEX merchant_keys_by_kek ON merchant_keys(kek_version);

            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                role TEXT NOT NULL CHECK (role IN ('admin', 'readonly', 'runner')),
                secret_hash BLOB NOT NULL,
                created_at TEXT NOT NULL,
                revoked_at TEXT
            ) STRICT;
            CREATE INDEX api_keys_by_merchant ON api_keys(merchant_id);

            CREATE TABLE audit_events (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                occurred_at TEXT NOT NULL,
                merchant_id TEXT,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                object_type TEXT NOT NULL,
                object_id TEXT,
                details TEXT NOT NULL,
                prev_hash BLOB NOT NULL,
                hash BLOB NOT NULL
            ) STRICT;
            CREATE INDEX audit_events_by_merchant ON audit_events(merchant_id, seq);

            CREATE TABLE idempotency_keys (
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                key TEXT NOT NULL,
                request_hash BLOB NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
                status_code INTEGER,
                response_body BLOB,
                created_at TEXT NOT NULL,
                PRIMARY KEY (merchant_id, key)
            ) STRICT;
            CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
            """),
        Migration(id: 2, name: "secure cards and custom fields", sql: """
            CREATE TABLE custom_field_definitions (
                merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
                definitions TEXT NOT NULL,
                updated_at TEXT NOT NULL
            ) STRICT;

            CREATE TABLE secure_cards (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                merchant_reference TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'deleted')),
                card_type TEXT NOT NULL,
                masked_number TEXT NOT NULL,
                expiry_month INTEGER NOT NULL,
                expiry_year INTEGER NOT NULL,
                entry_mode TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                key_version INTEGER NOT NULL,
                sealed_card BLOB,
                sealed_details BLOB,
                verification TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                deleted_at TEXT,
                purged_at TEXT
            ) STRICT;
            CREATE UNIQUE INDEX secure_cards_live_reference ON secure_cards(merchant_id, merchant_reference) WHERE status = 'active';
            CREATE INDEX secure_cards_by_merchant ON secure_cards(merchant_id, seq);
            CREATE INDEX secure_cards_by_fingerprint ON secure_cards(merchant_id, fingerprint);
            CREATE INDEX secure_cards_by_key_version ON secure_cards(merchant_id, key_version);
            """),
        Migration(id: 3, name: "schedules and steps", sql: """
            CREATE TABLE schedules (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                secure_card_id TEXT NOT NULL REFERENCES secure_cards(id),
                status TEXT NOT NULL CHECK (status IN ('pending_confirmation', 'active', 'paused', 'past_due', 'completed', 'cancelled', 'expired')),
                plan TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                currency TEXT NOT NULL,
                description TEXT,
                external_id TEXT,
                receipt_email TEXT,
                receipt_phone TEXT,
                time_zone TEXT NOT NULL,
                materialized_through TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                confirmed_at TEXT,
                expires_at TEXT,
                paused_at TEXT
            ) STRICT;
            CREATE INDEX schedules_by_merchant ON schedules(merchant_id, seq);
            CREATE INDEX schedules_by_card ON schedules(secure_card_id, status);
            CREATE INDEX schedules_pending ON schedules(status, expires_at);

            CREATE TABLE schedule_steps (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                schedule_id TEXT NOT NULL REFERENCES schedules(id),
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                sequence INTEGER NOT NULL,
                date TEXT NOT NULL,
                due_at TEXT NOT NULL,
                amount INTEGER NOT NULL CHECK (amount > 0),
                currency TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('scheduled', 'processing', 'retry_pending', 'approved', 'failed', 'skipped', 'cancelled')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT,
                updated_at TEXT NOT NULL,
                UNIQUE (schedule_id, sequence)
            ) STRICT;
            CREATE INDEX schedule_steps_due ON schedule_steps(status, due_at);
            """),
        Migration(id: 4, name: "transactions", sql: """
            CREATE TABLE transactions (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                type TEXT NOT NULL CHECK (type IN ('sale', 'authorize', 'capture', 'void', 'refund', 'verify')),
                status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'error', 'voided', 'refunded',
                    'partially_refunded', 'captured', 'in_doubt')),
                amount INTEGER NOT NULL CHECK (amount >= 0),
                currency TEXT NOT NULL,
                secure_card_id TEXT,
                merchant_reference TEXT,
                card_type TEXT,
                masked_number TEXT,
                schedule_id TEXT,
                step_id TEXT,
                attempt INTEGER,
                parent_id TEXT REFERENCES transactions(id),
                idempotency_key TEXT NOT NULL UNIQUE,
                order_reference TEXT NOT NULL,
                description TEXT,
                gateway TEXT NOT NULL,
                gateway_transaction_id TEXT,
                auth_code TEXT,
                response_code TEXT,
                response_text TEXT,
                avs_result TEXT,
                cvv_result TEXT,
                decline_code TEXT,
                decline_category TEXT,
                error_code TEXT,
                captured_amount INTEGER NOT NULL DEFAULT 0,
                refunded_amount INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            ) STRICT;
            CREATE INDEX transactions_by_merchant ON transactions(merchant_id, seq);
            CREATE INDEX transactions_by_status ON transactions(merchant_id, status, seq);
            CREATE INDEX transactions_by_schedule ON transactions(schedule_id, seq);
            CREATE INDEX transactions_by_parent ON transactions(parent_id);
            CREATE UNIQUE INDEX transactions_step_attempt ON transactions(step_id, attempt) WHERE step_id IS NOT NULL;
            """),
        Migration(id: 5, name: "webhook outbox", sql: """
            CREATE TABLE webhook_events (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                type TEXT NOT NULL,
                payload TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'expired')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT NOT NULL,
                lease_until TEXT,
                last_error TEXT,
                created_at TEXT NOT NULL,
                delivered_at TEXT,
                expires_at TEXT NOT NULL
            ) STRICT;
            CREATE INDEX webhook_events_due ON webhook_events(status, next_attempt_at);
            CREATE INDEX webhook_events_by_merchant ON webhook_events(merchant_id, seq);
            """),
        Migration(id: 6, name: "charge runs and step leases", sql: """
            ALTER TABLE schedule_steps ADD COLUMN lease_owner TEXT;
            ALTER TABLE schedule_steps ADD COLUMN lease_until TEXT;
            CREATE INDEX schedule_steps_retry ON schedule_steps(status, next_attempt_at);

            CREATE TABLE charge_runs (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT REFERENCES merchants(id),
                status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
                as_of TEXT NOT NULL,
                dry_run INTEGER NOT NULL,
                started_by TEXT NOT NULL,
                started_at TEXT NOT NULL,
                finished_at TEXT,
                summary TEXT
            ) STRICT;
            CREATE INDEX charge_runs_by_merchant ON charge_runs(merchant_id, seq);
            """),
        Migration(id: 7, name: "transactions by creation time", sql: """
            CREATE INDEX transactions_by_created ON transactions(merchant_id, created_at);
            """),
        Migration(id: 8, name: "leased steps", sql: """
            CREATE INDEX schedule_steps_leased ON schedule_steps(lease_owner) WHERE lease_owner IS NOT NULL;
            """),
        Migration(id: 9, name: "charge run owners", sql: """
            ALTER TABLE charge_runs ADD COLUMN owner TEXT;
            CREATE INDEX charge_runs_running ON charge_runs(status) WHERE status = 'running';
            """),
        // The same constraints, without the temporary index SQLite builds for an IN list on every
        // write of the column (see `rewriteCheckListsAsComparisons`): the tables each charge writes.
        Migration(id: 10, name: "status and type checks as comparisons") { connection in
            try connection.rewriteCheckListsAsComparisons([
                "transactions": ["type", "status"], "schedule_steps": ["status"], "schedules": ["status"], "webhook_events": ["status"],
            ])
        },
        // Idempotency rows keep a keyed MAC of the request (`request_scheme` says which kind; 0 = an
        // unkeyed SHA-256 from before, upgraded at start-up), the data-key version of the sealed
        // response and the card it concerns (destroyed when the card is purged); secure cards say
        // whether their sealed card data binds the clear metadata (0 = sealed before, bound at
        // start-up).
        Migration(id: 11, name: "keyed idempotency fingerprints, bound card metadata", sql: """
            ALTER TABLE idempotency_keys ADD COLUMN request_scheme INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE idempotency_keys ADD COLUMN key_version INTEGER;
            ALTER TABLE idempotency_keys ADD COLUMN secure_card_id TEXT;
            CREATE INDEX idempotency_keys_legacy ON idempotency_keys(merchant_id) WHERE request_scheme = 0;
            CREATE INDEX idempotency_keys_by_card ON idempotency_keys(merchant_id, secure_card_id) WHERE secure_card_id IS NOT NULL;

            ALTER TABLE secure_cards ADD COLUMN metadata_bound INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX secure_cards_unbound ON secure_cards(seq) WHERE metadata_bound = 0 AND sealed_card IS NOT NULL;
            """),
        // Schedules' receipt contacts are sealed; the clear columns stay NULL (values from before are
        // sealed at start-up).
        Migration(id: 12, name: "sealed schedule contacts", sql: """
            ALTER TABLE schedules ADD COLUMN sealed_contacts BLOB;
            CREATE INDEX schedules_clear_contacts ON schedules(seq) WHERE receipt_email IS NOT NULL OR receipt_phone IS NOT NULL;
            """),
        // The audit chain's MAC key, wrapped under the KEK like the merchants' keys (rewrapped by
        // `keys rotate`). Created at the first start after this migration (`ensureAuditKey`).
        Migration(id: 13, name: "system keys (the audit chain's key)", sql: """
            CREATE TABLE system_keys (
                purpose TEXT PRIMARY KEY CHECK (purpose = 'audit'),
                kek_version INTEGER NOT NULL REFERENCES kek_versions(version),
                wrapped_key BLOB NOT NULL,
                created_at TEXT NOT NULL
            ) STRICT;
            """),
        // A step whose attempt may have been charged, and whose absence the gateway cannot prove,
        // waits for an operator (`needs_review`); never claimed by a run.
        Migration(id: 16, name: "steps in review") { connection in
            try connection.addCheckValues(table: "schedule_steps", column: "status", values: ["needs_review"])
        },
        // The network transaction id of a stored card's first use, per card and gateway, sealed like
        // card data (`masked` is the only clear form), for the card's later merchant-initiated
        // charges.
        Migration(id: 18, name: "stored credentials (card-on-file network transaction ids)", sql: """
            CREATE TABLE stored_credentials (
                merchant_id TEXT NOT NULL,
                secure_card_id TEXT NOT NULL,
                gateway TEXT NOT NULL,
                sealed_network_transaction_id BLOB NOT NULL,
                masked TEXT NOT NULL,
                transaction_id TEXT,
                created_at TEXT NOT NULL,
                PRIMARY KEY (merchant_id, secure_card_id, gateway)
            ) STRICT, WITHOUT ROWID;
            """),
        // How a transaction used a stored card (`initial` | `subsequent`) and the network's id for
        // it, masked.
        Migration(id: 19, name: "transactions' stored-credential flags", sql: """
            ALTER TABLE transactions ADD COLUMN stored_credential TEXT CHECK (stored_credential = 'initial' OR stored_credential = 'subsequent');
            ALTER TABLE transactions ADD COLUMN network_transaction_id TEXT;
            """),

        // The holder-name blind index (`HolderNameIndex`): keyed MACs of name tokens per card; cards
        // from before are indexed at start-up (`name_indexed` 0).
        Migration(id: 23, name: "holder-name blind index", sql: """
            CREATE TABLE secure_card_names (
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                token_mac BLOB NOT NULL,
                secure_card_id TEXT NOT NULL REFERENCES secure_cards(id),
                PRIMARY KEY (merchant_id, token_mac, secure_card_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX secure_card_names_by_card ON secure_card_names(secure_card_id);
            ALTER TABLE secure_cards ADD COLUMN name_indexed INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX secure_cards_unindexed_names ON secure_cards(seq) WHERE name_indexed = 0 AND sealed_card IS NOT NULL;
            """),
        // Credits (refunds without an earlier sale) where a merchant's settings allow them, and
        // duplicate protection: a keyed MAC of card, type, amount and currency
        // (`DuplicateTransactionCheck`), never an unkeyed function of the card.
        Migration(id: 24, name: "credits and duplicate protection") { connection in
            try connection.execute("""
                ALTER TABLE merchants ADD COLUMN allow_credit INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE transactions ADD COLUMN duplicate_mac BLOB;
                CREATE INDEX transactions_duplicates ON transactions(merchant_id, duplicate_mac, created_at) WHERE duplicate_mac IS NOT NULL;
                """)
            try connection.addCheckValues(table: "transactions", column: "type", values: ["credit"])
        },
        // A transaction whose gateway answer was lost, or whose process died before it was written,
        // is settled by the reconciler; `reconcile_after` is when it may next be looked up (a claim
        // by one server, then the pause before the next look-up). What the gateway cannot prove
        // waits for an operator (`needs_review`).
        Migration(id: 25, name: "transactions in review, reconciliation") { connection in
            try connection.addCheckValues(table: "transactions", column: "status", values: ["needs_review"])
            try connection.execute("""
                ALTER TABLE transactions ADD COLUMN reconcile_after TEXT;
                CREATE INDEX transactions_to_reconcile ON transactions(reconcile_after) WHERE status IN ('pending', 'in_doubt') AND step_id IS NULL;
                CREATE INDEX transactions_in_review ON transactions(merchant_id, seq) WHERE status = 'needs_review';
                """)
        },
        // The sandbox gateway's ledger, so that every process on the database sees one sandbox
        // (a charge made by `vault charge run` can be refunded over the API) and it survives a
        // restart: its transactions and the calls it remembers under their idempotency keys, each
        // a JSON document of amounts, ids and answers (`SandboxLedgerCoding`), never card data.
        Migration(id: 26, name: "sandbox gateway ledger", sql: """
            CREATE TABLE sandbox_transactions (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                reference TEXT NOT NULL,
                parent_id TEXT,
                record TEXT NOT NULL,
                created_at TEXT NOT NULL
            ) STRICT;
            CREATE INDEX sandbox_transactions_by_reference ON sandbox_transactions(reference);
            CREATE TABLE sandbox_calls (
                seq INTEGER PRIMARY KEY,
                idempotency_key TEXT NOT NULL UNIQUE,
                operation TEXT NOT NULL,
                reference TEXT NOT NULL,
                parent_id TEXT,
                record TEXT NOT NULL,
                created_at TEXT NOT NULL
            ) STRICT;
            CREATE INDEX sandbox_calls_by_reference ON sandbox_calls(reference);
            """),
        // The currency of a merchant's gateway account, in which cards are verified (US dollars
        // for every merchant created before it could be set).
        Migration(id: 27, name: "merchant gateway currency", sql: """
            ALTER TABLE merchants ADD COLUMN gateway_currency TEXT NOT NULL DEFAULT 'USD';
            """),
        // A void may reverse part of a sale or an uncaptured authorization where the merchant's
        // gateway allows it (a partial reversal): the original keeps its status and records what
        // was reversed, so later voids, captures and refunds take only what remains. A stored
        // credential records the fingerprint of the card number it was the first use of, so a
        // new number drops the old number's credential but keeps one its own verification stored.
        Migration(id: 28, name: "partial reversals, stored credentials' card numbers", sql: """
            ALTER TABLE transactions ADD COLUMN voided_amount INTEGER NOT NULL DEFAULT 0;
            UPDATE transactions SET voided_amount = amount WHERE status = 'voided' AND type IN ('sale', 'authorize');
            ALTER TABLE stored_credentials ADD COLUMN card_fingerprint TEXT;
            """),
        // The indexes PostgreSQL has had from its first billing migration: each run's look-up of
        // open-ended schedules (of a merchant, when given) and a merchant's steps by status.
        Migration(id: 29, name: "open-ended schedules and steps by merchant and status indexes", sql: """
            CREATE INDEX schedules_open_ended ON schedules(merchant_id) WHERE materialized_through IS NOT NULL;
            CREATE INDEX schedule_steps_by_merchant_status ON schedule_steps(merchant_id, status);
            """),
        // A schedule's plan gets a column of its own in a versioned stored form (`StoredPlan`,
        // `"v": 1`), so renaming an API field cannot change stored plans; filled here from `plan`
        // (absent values left out). `plan` keeps the request form servers of earlier builds read,
        // and is still written (an expand-and-contract across a rolling upgrade: see `StoredPlan`).
        Migration(
            id: 30, name: "schedule plans in their stored form",
            sql: "ALTER TABLE schedules ADD COLUMN stored_plan TEXT;\n" + storedPlanFill),
        // An Idempotency-Key's claim names its holder and when it is taken as abandoned, and
        // reserves the id of the transaction its request creates: a retry after the holder died
        // takes the claim over and answers what that request left instead of "in progress" for a
        // day. Claims of an earlier build name no holder and are taken over by the next retry.
        Migration(id: 31, name: "idempotency claims with a holder and an expiry", sql: """
            ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
            ALTER TABLE idempotency_keys ADD COLUMN expires_at TEXT;
            ALTER TABLE idempotency_keys ADD COLUMN transaction_id TEXT;
            """),
        // API key rows are bound: the secret becomes a keyed MAC of the bearer's SHA-256 and each row
        // carries a MAC of its id, merchant, role and dates (`APIKeyBinding`), so a key inserted,
        // moved, raised or un-revoked in SQL authenticates nobody. Rows of an earlier build
        // (`secret_scheme` 0) are bound at start-up.
        Migration(id: 32, name: "bound API keys", sql: """
            ALTER TABLE api_keys ADD COLUMN secret_scheme INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE api_keys ADD COLUMN binding BLOB;
            CREATE INDEX api_keys_legacy ON api_keys(id) WHERE secret_scheme = 0;
            """),
        // Schedules and steps are bound: each row carries a MAC of the fields that move money
        // (`ScheduleBinding`), written by the domain with the row and checked before any charge,
        // so a schedule pointed at another card or a step re-priced in SQL is never charged.
        // Rows of an earlier build (no binding) are bound at start-up, once per merchant.
        Migration(id: 33, name: "bound schedules and steps", sql: """
            ALTER TABLE schedules ADD COLUMN binding BLOB;
            ALTER TABLE schedule_steps ADD COLUMN binding BLOB;
            CREATE INDEX schedules_unbound ON schedules(seq) WHERE binding IS NULL;
            CREATE INDEX schedule_steps_unbound ON schedule_steps(schedule_id) WHERE binding IS NULL;
            """),
        // Capture sessions: a card registration prepared by the merchant's back end and spent by one
        // card sent from the cardholder's device with the session's client secret, kept only as a
        // keyed MAC (`CaptureSessionSecrets`); the customer and custom fields sealed.
        Migration(id: 34, name: "capture sessions", sql: """
            CREATE TABLE capture_sessions (
                id TEXT NOT NULL PRIMARY KEY,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                status TEXT NOT NULL CHECK (status = 'open' OR status = 'submitting' OR status = 'completed' OR status = 'failed'),
                secret_mac BLOB NOT NULL,
                allowed_origin TEXT NOT NULL,
                merchant_reference TEXT NOT NULL,
                verify INTEGER,
                sealed_details BLOB NOT NULL,
                key_version INTEGER NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                secure_card_reference TEXT,
                masked_number TEXT,
                card_type TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            );
            CREATE INDEX capture_sessions_merchant ON capture_sessions(merchant_id, created_at);
            """),
        // Transactions are bound: each row carries a MAC of the fields that decide what a follow-up
        // moves and where (`TransactionBinding`), written by the domain and checked before a
        // capture, void or refund is sent, so an amount or gateway id edited in SQL moves no money.
        Migration(id: 35, name: "bound transactions", sql: """
            ALTER TABLE transactions ADD COLUMN binding BLOB;
            CREATE INDEX transactions_unbound ON transactions(seq) WHERE binding IS NULL;
            """),
        // API keys an auditor can account for: a label, an optional expiry (bound into the row's
        // MAC when set) and the last use, recorded at most once a minute per key.
        Migration(id: 36, name: "API key label, expiry and last use", sql: """
            ALTER TABLE api_keys ADD COLUMN label TEXT;
            ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
            ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
            """),
        // The e-mail receipt outbox: one row per transaction, queued in the outcome's commit, the
        // recipient sealed under the merchant's data key, claimed with a lease by deliverers.
        Migration(id: 37, name: "e-mail receipt outbox", sql: """
            CREATE TABLE email_receipts (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                merchant_id TEXT NOT NULL REFERENCES merchants(id),
                transaction_id TEXT NOT NULL UNIQUE,
                event TEXT NOT NULL CHECK (event IN ('paid', 'refunded', 'voided')),
                recipient TEXT NOT NULL,
                masked_recipient TEXT NOT NULL,
                merchant_name TEXT NOT NULL,
                time_zone TEXT NOT NULL,
                occurred_at TEXT NOT NULL,
                body TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT NOT NULL,
                lease_until TEXT,
                last_error TEXT,
                created_at TEXT NOT NULL,
                sent_at TEXT
            ) STRICT;
            CREATE INDEX email_receipts_due ON email_receipts(status, next_attempt_at);
            CREATE INDEX email_receipts_by_merchant ON email_receipts(merchant_id, seq);
            """),
        // A webhook signing key replaced by a rotation keeps signing beside the new one until then.
        Migration(id: 38, name: "webhook keys signing until the end of a rotation's overlap", sql: """
            ALTER TABLE merchant_keys ADD COLUMN signs_until TEXT;
            """),
        // Console operators: individual accounts with a role, the merchants they may see (NULL for
        // every one), an Argon2id password hash, a sealed TOTP secret, the failed sign-ins that lock
        // them and the step of the last code accepted (a code is used once); their sessions, found
        // by the SHA-256 of the cookie's token, never the token itself.
        Migration(id: 39, name: "console operators and sessions", sql: """
            CREATE TABLE operators (
                id TEXT NOT NULL PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL CHECK (role = 'admin' OR role = 'support' OR role = 'readonly'),
                merchant_ids TEXT,
                status TEXT NOT NULL CHECK (status = 'active' OR status = 'disabled'),
                password_hash TEXT NOT NULL,
                totp_secret BLOB NOT NULL,
                failed_sign_ins INTEGER NOT NULL DEFAULT 0,
                locked_until TEXT,
                last_code_step INTEGER,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            CREATE TABLE console_sessions (
                token_hash TEXT NOT NULL PRIMARY KEY,
                operator_id TEXT NOT NULL REFERENCES operators(id),
                created_at TEXT NOT NULL,
                last_seen_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            );
            CREATE INDEX console_sessions_operator ON console_sessions(operator_id);
            """),
        // Each audit chain is bound (`AuditChainBinding`): its event count and last link under a MAC
        // of the audit key, advanced in the commit of every append, so a chain deleted whole is
        // noticed. The chain of an earlier build is copied unbound (mac NULL) and bound once at start.
        Migration(id: 40, name: "audit chain bindings", sql: """
            CREATE TABLE audit_chain_bindings (
                chain TEXT NOT NULL PRIMARY KEY,
                events INTEGER NOT NULL,
                head BLOB NOT NULL,
                mac BLOB
            );
            INSERT INTO audit_chain_bindings (chain, events, head, mac)
                SELECT 'all', seq, hash, NULL FROM audit_events ORDER BY seq DESC LIMIT 1;
            """),
        // A transaction keeps the payer's receipt address, sealed under the merchant's data key, so
        // its follow-ups and an outcome settled later send their receipts to it; each queued receipt
        // is bound (`ReceiptBinding`), so a row edited in SQL is never sent; sent and failed
        // receipts are purged by age.
        Migration(id: 41, name: "receipt addresses and bindings", sql: """
            ALTER TABLE transactions ADD COLUMN receipt_address BLOB;
            ALTER TABLE email_receipts ADD COLUMN binding BLOB;
            CREATE INDEX email_receipts_settled ON email_receipts(status, created_at);
            """),
        // The end of a replaced webhook key's window is bound (`WebhookSigningWindowBinding`), so it
        // cannot be raised in the database; windows of an earlier build are bound once at start.
        Migration(id: 42, name: "webhook signing window bindings", sql: """
            ALTER TABLE merchant_keys ADD COLUMN signs_until_binding BLOB;
            """),
        // A card's schedules, a page at a time (`ScheduleStore.schedules(secureCardReference:)`, the
        // card page's list and `GET /v1/schedules?secureCardReference=`): the merchant, the card and
        // the paging order in one index, so the list reads only that card's rows and needs no sort.
        Migration(id: 43, name: "schedules by merchant and card", sql: """
            CREATE INDEX schedules_by_merchant_card ON schedules(merchant_id, secure_card_id, seq);
            """),
        // The steps a run claims, one partial index per status it claims from (scheduled, in
        // progress, waiting for a retry), and the steps in review by merchant, in place of three
        // indexes over every step ever settled: a charged step leaves these indexes and is never
        // written to them again, where before each of its two moves deleted and inserted an entry
        // in all three (the single writer's index work per charged step: 3 entries instead of 12).
        Migration(id: 44, name: "open steps by status", sql: """
            DROP INDEX schedule_steps_due;
            DROP INDEX schedule_steps_retry;
            DROP INDEX schedule_steps_by_merchant_status;
            CREATE INDEX schedule_steps_scheduled ON schedule_steps(due_at) WHERE status = 'scheduled';
            CREATE INDEX schedule_steps_processing ON schedule_steps(due_at) WHERE status = 'processing';
            CREATE INDEX schedule_steps_retry_pending ON schedule_steps(next_attempt_at) WHERE status = 'retry_pending';
            CREATE INDEX schedule_steps_in_review ON schedule_steps(merchant_id, seq) WHERE status = 'needs_review';
            """),
        // A schedule's status in none of the indexes a charge's outcome moves: the card's index
        // (what the foreign key from schedules to cards needs) is on the card alone, and the
        // unconfirmed schedules' expiry reads a partial index of the schedules still awaiting
        // confirmation. Completing or failing a schedule rewrote an entry in both, each in a
        // random page: an eighth of the pages a charged step wrote.
        Migration(id: 45, name: "schedule status out of the card index", sql: """
            DROP INDEX schedules_by_card;
            CREATE INDEX schedules_by_card ON schedules(secure_card_id);
            DROP INDEX schedules_pending;
            CREATE INDEX schedules_pending ON schedules(expires_at) WHERE status = 'pending_confirmation';
            """),
        // Every change of a key's row (but its last use) or of a merchant's row advances the key
        // generation, whoever writes it: processes keep verified API key credentials under the
        // generation they were read in and read it every two seconds, so none acts on a row
        // changed since. A trigger, not each write path, so no path (nor an operator's SQL) can
        // forget it. Inserts need none: a key is never kept before it was read.
        Migration(
            id: 46, name: "key generation follows keys and merchants",
            sql: [
                ("api_keys_advance_key_generation",
                 "UPDATE OF id, merchant_id, role, secret_hash, created_at, revoked_at, secret_scheme, binding, label, expires_at ON api_keys"),
                ("api_keys_deleted_advance_key_generation", "DELETE ON api_keys"),
                ("merchants_advance_key_generation", "UPDATE ON merchants"),
                ("merchants_deleted_advance_key_generation", "DELETE ON merchants"),
            ].map { name, event in
                """
                CREATE TRIGGER \(name) AFTER \(event)
                BEGIN
                    INSERT OR IGNORE INTO meta (key, value) VALUES ('key_generation', '0');
                    UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'key_generation';
                END;
                """
            }.joined(separator: "\n")),
    ]

    /// Fills `schedules.stored_plan` from the request form in `plan`, for rows an earlier build wrote
    /// (migration 30; the tests run it again over rows written as an earlier build writes them).
    public static let storedPlanFill = """
        UPDATE schedules SET stored_plan = json_patch('{"v":1}', json_object(
            'kind', json_extract(plan, '$.type'), 'start', json_extract(plan, '$.startDate'),
            'endKind', json_extract(plan, '$.endType'), 'endOn', json_extract(plan, '$.endDate'),
            'endAfter', json_extract(plan, '$.endCount'), 'month', json_extract(plan, '$.month'),
            'day', json_extract(plan, '$.day'), 'hour', json_extract(plan, '$.hour'),
            'minute', json_extract(plan, '$.minute'), 'dates', json(json_extract(plan, '$.dates')),
            'zone', json_extract(plan, '$.timeZone')))
        WHERE stored_plan IS NULL AND json_valid(plan) AND json_type(plan, '$.v') IS NULL;
        """
}
