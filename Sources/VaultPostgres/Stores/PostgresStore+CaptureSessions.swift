public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: CaptureSessionStore {
    public func insertCaptureSession(_ row: CaptureSessionRow, audit: AuditEntry) async throws {
        let session = row.session
        try await write { transaction in
            try await transaction.run(
                """
                INSERT INTO capture_sessions (id, merchant_id, status, secret_mac, allowed_origin, merchant_reference, verify, sealed_details,
                    key_version, attempts, created_at, updated_at, expires_at)
                VALUES (\(session.id), \(session.merchantID), \(session.status.rawValue), \(bytea(row.secretMAC)), \(session.allowedOrigin.value),
                    \(session.merchantReference), \(session.verify.map { $0 ? 1 : 0 }), \(bytea(row.sealedDetails)), \(row.keyVersion),
                    \(session.attempts), \(Timestamp.string(session.createdAt)), \(Timestamp.string(session.updatedAt)),
                    \(Timestamp.string(session.expiresAt)))
                """)
            try await transaction.appendAudit(audit)
        }
    }

    public func captureSessionsToReseal(merchantID: String, belowKeyVersion: Int, limit: Int) async throws -> [CaptureSessionRow] {
        try await readStatement { connection in
            try await connection.rows(
                "SELECT * FROM capture_sessions WHERE merchant_id = \(merchantID) AND key_version < \(belowKeyVersion) ORDER BY id LIMIT \(limit)",
                logger: logger
            ).map { try CaptureSessionRow(storedRow: $0) }
        }
    }

    public func resealCaptureSessionDetails(id: String, old: [UInt8], new: [UInt8], keyVersion: Int) async throws -> Bool {
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE capture_sessions SET sealed_details = \(bytea(new)), key_version = \(keyVersion)
                WHERE id = \(id) AND sealed_details = \(bytea(old)) RETURNING 1
                """) == 1
        }
    }

    public func captureSession(id: String) async throws -> CaptureSessionRow? {
        try await readStatement { connection in
            try await connection.row("SELECT * FROM capture_sessions WHERE id = \(id)", logger: logger).map { try CaptureSessionRow(storedRow: $0) }
        }
    }

    /// One guarded `UPDATE`: a second claim of the same open session waits for the first one's row
    /// lock, then re-reads the row under READ COMMITTED, finds it `submitting` and changes nothing.
    public func applyCaptureSessionTransition(_ transition: CaptureSessionTransition) async throws -> Bool {
        let unexpired = transition.unexpiredAt.map(Timestamp.string) ?? ""
        return try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE capture_sessions SET status = \(transition.to.rawValue), updated_at = \(Timestamp.string(transition.at)),
                    attempts = attempts + \(transition.countsAttempt ? 1 : 0),
                    secure_card_reference = coalesce(\(transition.card?.secureCardReference), secure_card_reference),
                    masked_number = coalesce(\(transition.card?.maskedNumber), masked_number),
                    card_type = coalesce(\(transition.card?.cardType.rawValue), card_type)
                WHERE id = \(transition.sessionID) AND merchant_id = \(transition.merchantID) AND status = \(transition.from.rawValue)
                    AND expires_at > \(unexpired)
                RETURNING 1
                """)
            guard changed == 1 else { return false }
            if let audit = transition.audit { try await transaction.appendAudit(audit) }
            return true
        }
    }

    public func deleteCaptureSessions(used: [CaptureSession.Status], endedBefore cutoff: Date, limit: Int) async throws -> Int {
        let (statuses, before) = (used.map(\.rawValue), Timestamp.string(cutoff))
        return try await write { transaction in
            try await transaction.run(
                """
                DELETE FROM capture_sessions WHERE id IN (
                    SELECT id FROM capture_sessions
                    WHERE (status = ANY(\(statuses)::text[]) AND updated_at < \(before)) OR expires_at < \(before)
                    ORDER BY created_at LIMIT \(limit))
                RETURNING 1
                """)
        }
    }
}
