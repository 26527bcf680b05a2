public import Foundation
public import Vault

extension SQLiteStore: CaptureSessionStore {
    public func insertCaptureSession(_ row: CaptureSessionRow, audit: AuditEntry) async throws {
        let session = row.session
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO capture_sessions (id, merchant_id, status, secret_mac, allowed_origin, merchant_reference, verify, sealed_details,
                    key_version, attempts, created_at, updated_at, expires_at)
                VALUES (\(session.id), \(session.merchantID), \(session.status.rawValue), \(row.secretMAC), \(session.allowedOrigin.value),
                    \(session.merchantReference), \(session.verify.map { $0 ? 1 : 0 }), \(row.sealedDetails), \(row.keyVersion), \(session.attempts),
                    \(Timestamp.string(session.createdAt)), \(Timestamp.string(session.updatedAt)), \(Timestamp.string(session.expiresAt)))
                """)
            try connection.appendAudit(audit)
        }
    }

    public func captureSessionsToReseal(merchantID: String, belowKeyVersion: Int, limit: Int) async throws -> [CaptureSessionRow] {
        try await database.read { connection in
            try connection.query(
                "SELECT * FROM capture_sessions WHERE merchant_id = \(merchantID) AND key_version < \(belowKeyVersion) ORDER BY id LIMIT \(limit)"
            ).map { try CaptureSessionRow(storedRow: $0) }
        }
    }

    public func resealCaptureSessionDetails(id: String, old: [UInt8], new: [UInt8], keyVersion: Int) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE capture_sessions SET sealed_details = \(new), key_version = \(keyVersion) WHERE id = \(id) AND sealed_details = \(old)")
            return connection.changes == 1
        }
    }

    public func captureSession(id: String) async throws -> CaptureSessionRow? {
        try await database.read { connection in
            try connection.queryOne("SELECT * FROM capture_sessions WHERE id = \(id)").map { try CaptureSessionRow(storedRow: $0) }
        }
    }

    /// The guarded update runs on the single writer: of two claims of one open session, the second
    /// finds it `submitting` and changes nothing.
    public func applyCaptureSessionTransition(_ transition: CaptureSessionTransition) async throws -> Bool {
        let unexpired = transition.unexpiredAt.map(Timestamp.string) ?? ""
        return try await database.write { connection in
            try connection.run(
                """
                UPDATE capture_sessions SET status = \(transition.to.rawValue), updated_at = \(Timestamp.string(transition.at)),
                    attempts = attempts + \(transition.countsAttempt ? 1 : 0),
                    secure_card_reference = coalesce(\(transition.card?.secureCardReference), secure_card_reference),
                    masked_number = coalesce(\(transition.card?.maskedNumber), masked_number),
                    card_type = coalesce(\(transition.card?.cardType.rawValue), card_type)
                WHERE id = \(transition.sessionID) AND merchant_id = \(transition.merchantID) AND status = \(transition.from.rawValue)
                    AND expires_at > \(unexpired)
                """)
            guard connection.changes == 1 else { return false }
            if let audit = transition.audit { try connection.appendAudit(audit) }
            return true
        }
    }

    public func deleteCaptureSessions(used: [CaptureSession.Status], endedBefore cutoff: Date, limit: Int) async throws -> Int {
        let (statuses, before) = (used.isEmpty ? [""] : used.map(\.rawValue), Timestamp.string(cutoff))
        return try await database.write { connection in
            try connection.run(
                """
                DELETE FROM capture_sessions WHERE id IN (
                    SELECT id FROM capture_sessions
                    WHERE (status IN (\(list: statuses)) AND updated_at < \(before)) OR expires_at < \(before)
                    ORDER BY created_at LIMIT \(limit))
                """)
            return connection.changes
        }
    }
}
