extension WrappedKey {
    /// The row of `merchant_keys` as both engines store it (named in errors as
    /// `<merchant id>/<purpose>/<version>`).
    ///
    /// - Throws: `StoredRowError` for a purpose or instant this build cannot read.
    public init(storedRow row: some StoredRow) throws {
        let merchantID = try row.string("merchant_id")
        let version = try row.int("version")
        let purpose = try row.string("purpose")
        let stored = TableRow(row, table: "merchant_keys", id: "\(merchantID)/\(purpose)/\(version)")
        self.init(
            merchantID: merchantID, purpose: try stored.value(KeyPurpose.self, "purpose"), version: version,
            kekVersion: try row.int("kek_version"), wrapped: try row.optionalBlob("wrapped_key"), createdAt: try stored.instant("created_at"))
    }
}
