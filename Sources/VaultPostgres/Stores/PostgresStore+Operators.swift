public import Foundation
import PostgresNIO
public import Vault

/// Operators and console sessions. Each change is one guarded `UPDATE` in a transaction with its
/// audit event: under READ COMMITTED a second writer of the same row waits for the first, then
/// re-checks the guard against the row the first left (two sign-ins with one code open one session).
extension PostgresStore: OperatorStore {
    public func insertOperator(_ row: OperatorRow, audit: AuditEntry) async throws {
        let account = row.account
        try await write { transaction in
            try await transaction.run(
                """
                INSERT INTO operators (id, name, role, merchant_ids, status, password_hash, totp_secret, failed_sign_ins, locked_until,
                    last_code_step, created_at, updated_at)
                VALUES (\(account.id), \(account.name), \(account.role.rawValue), \(row.storedMerchantIDs), \(account.status.rawValue),
                    \(row.passwordHash), \(bytea(row.sealedSecret)), \(account.failedSignIns), \(account.lockedUntil.map(Timestamp.string)),
                    \(account.lastCodeStep.map { Int($0) }), \(Timestamp.string(account.createdAt)), \(Timestamp.string(account.updatedAt)))
                """)
            try await transaction.appendAudit(audit)
        }
    }

    public func operatorRow(named name: String) async throws -> OperatorRow? {
        try await readStatement { connection in
            try await connection.row("SELECT * FROM operators WHERE name = \(name)", logger: logger).map { try OperatorRow(storedRow: $0) }
        }
    }

    public func operatorRow(id: String) async throws -> OperatorRow? {
        try await readStatement { connection in
            try await connection.row("SELECT * FROM operators WHERE id = \(id)", logger: logger).map { try OperatorRow(storedRow: $0) }
        }
    }

    public func operatorRows() async throws -> [OperatorRow] {
        try await readStatement { connection in
            try await connection.rows(#"SELECT * FROM operators ORDER BY name COLLATE "C""#, logger: logger).map { try OperatorRow(storedRow: $0) }
        }
    }

    public func disableOperator(id: String, sealedSecret: [UInt8], at: Date, audit: AuditEntry) async throws -> Bool {
        try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE operators SET status = \(unescaped: Operator.Status.disabled.sqlLiteral), totp_secret = \(bytea(sealedSecret)), updated_at = \(Timestamp.string(at))
                WHERE id = \(id) AND status = \(unescaped: Operator.Status.active.sqlLiteral)
                RETURNING 1
                """)
            guard changed == 1 else { return false }
            try await transaction.run("DELETE FROM console_sessions WHERE operator_id = \(id)")
            try await transaction.appendAudit(audit)
            return true
        }
    }

    public func resealOperatorSecret(id: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await write { transaction in
            try await transaction.run(
                "UPDATE operators SET totp_secret = \(bytea(new)) WHERE id = \(id) AND totp_secret = \(bytea(old)) RETURNING 1") == 1
        }
    }

    public func resetOperator(id: String, passwordHash: String, sealedSecret: [UInt8], at: Date, audit: AuditEntry) async throws {
        try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE operators SET password_hash = \(passwordHash), totp_secret = \(bytea(sealedSecret)), status = \(unescaped: Operator.Status.active.sqlLiteral), failed_sign_ins = 0,
                    locked_until = NULL, last_code_step = NULL, updated_at = \(Timestamp.string(at))
                WHERE id = \(id)
                RETURNING 1
                """)
            guard changed == 1 else { return }
            try await transaction.run("DELETE FROM console_sessions WHERE operator_id = \(id)")
            try await transaction.appendAudit(audit)
        }
    }

    public func recordFailedSignIn(
        id: String, lockoutAttempts: Int, lockedUntil: Date, at: Date, audit: AuditEntry, lockAudit: AuditEntry
    ) async throws -> Bool {
        let until = Timestamp.string(lockedUntil)
        return try await write { transaction in
            let row = try await transaction.row(
                """
                UPDATE operators SET
                    locked_until = CASE WHEN failed_sign_ins + 1 >= \(lockoutAttempts) THEN \(until) ELSE locked_until END,
                    failed_sign_ins = CASE WHEN failed_sign_ins + 1 >= \(lockoutAttempts) THEN 0 ELSE failed_sign_ins + 1 END,
                    updated_at = \(Timestamp.string(at))
                WHERE id = \(id)
                RETURNING failed_sign_ins, locked_until
                """)
            guard let row else { return false }
            try await transaction.appendAudit(audit)
            let locked = try row.int("failed_sign_ins") == 0 && row.optionalString("locked_until") == until
            if locked { try await transaction.appendAudit(lockAudit) }
            return locked
        }
    }

    public func recordSignIn(id: String, codeStep: Int64, session: ConsoleSession, at: Date, audit: AuditEntry) async throws -> Bool {
        let now = Timestamp.string(at)
        return try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE operators SET last_code_step = \(Int(codeStep)), failed_sign_ins = 0, updated_at = \(now)
                WHERE id = \(id) AND status = \(unescaped: Operator.Status.active.sqlLiteral) AND (locked_until IS NULL OR locked_until <= \(now))
                    AND (last_code_step IS NULL OR last_code_step < \(Int(codeStep)))
                RETURNING 1
                """)
            guard changed == 1 else { return false }
            try await transaction.run(
                """
                INSERT INTO console_sessions (token_hash, operator_id, created_at, last_seen_at, expires_at)
                VALUES (\(session.tokenHash), \(session.operatorID), \(Timestamp.string(session.createdAt)),
                    \(Timestamp.string(session.lastSeenAt)), \(Timestamp.string(session.expiresAt)))
                """)
            try await transaction.appendAudit(audit)
            return true
        }
    }

    public func consoleSession(tokenHash: String) async throws -> ConsoleSession? {
        try await readStatement { connection in
            try await connection.row("SELECT * FROM console_sessions WHERE token_hash = \(tokenHash)", logger: logger)
                .map { try ConsoleSession(storedRow: $0) }
        }
    }

    public func touchConsoleSession(tokenHash: String, at: Date, idleSince: Date) async throws -> Bool {
        let now = Timestamp.string(at)
        return try await write { transaction in
            try await transaction.run(
                """
                UPDATE console_sessions SET last_seen_at = \(now)
                WHERE token_hash = \(tokenHash) AND last_seen_at > \(Timestamp.string(idleSince)) AND expires_at > \(now)
                RETURNING 1
                """) == 1
        }
    }

    public func deleteConsoleSession(tokenHash: String, audit: AuditEntry?) async throws {
        try await write { transaction in
            let deleted = try await transaction.run("DELETE FROM console_sessions WHERE token_hash = \(tokenHash) RETURNING 1")
            if deleted == 1, let audit { try await transaction.appendAudit(audit) }
        }
    }
}
