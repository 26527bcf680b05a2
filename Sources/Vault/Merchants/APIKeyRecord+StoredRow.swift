extension APIKeyRecord {
    /// The row of `api_keys` as both engines store it; `prefix` is put before every column name
    /// (a query that joins the key to its merchant renames the key's columns, e.g. `key_role`).
    ///
    /// - Throws: `StoredRowError` for a role or instant this build cannot read.
    public init<Row: StoredRow>(storedRow stored: TableRow<Row>, prefix: String) throws {
        self.init(
            id: stored.id, merchantID: try stored.row.string(prefix + "merchant_id"), role: try stored.value(APIKeyRole.self, prefix + "role"),
            createdAt: try stored.instant(prefix + "created_at"), revokedAt: try stored.optionalInstant(prefix + "revoked_at"),
            label: try stored.row.optionalString(prefix + "label"), expiresAt: try stored.optionalInstant(prefix + "expires_at"),
            lastUsedAt: try stored.optionalInstant(prefix + "last_used_at"))
    }
}

extension StoredAPIKey {
    /// The row of `api_keys` as both engines store it, `prefix` as for ``APIKeyRecord``.
    ///
    /// - Throws: `StoredRowError` for a role, instant or secret scheme this build cannot read.
    public init<Row: StoredRow>(storedRow stored: TableRow<Row>, prefix: String) throws {
        let scheme = try stored.row.int(prefix + "secret_scheme")
        guard let known = SecretScheme(rawValue: scheme) else { throw stored.unreadable(prefix + "secret_scheme", value: String(scheme)) }
        guard let secret = try stored.row.optionalBlob(prefix + "secret_hash") else { throw stored.unreadable(prefix + "secret_hash", value: nil) }
        self.init(
            record: try APIKeyRecord(storedRow: stored, prefix: prefix), secret: secret, scheme: known,
            binding: try stored.row.optionalBlob(prefix + "binding"))
    }
}
