extension OperatorRow {
    /// The row of `operators` as both engines store it.
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("operators")
        let merchants = try row.optionalString("merchant_ids").map { $0.split(separator: ",").map(String.init) }
        let account = Operator(
            id: stored.id, name: try row.string("name"), role: try stored.value(OperatorRole.self, "role"), merchantIDs: merchants,
            status: try stored.value(Operator.Status.self, "status"), failedSignIns: try row.int("failed_sign_ins"),
            lockedUntil: try stored.optionalInstant("locked_until"), lastCodeStep: try row.optionalInt("last_code_step").map(Int64.init),
            createdAt: try stored.instant("created_at"), updatedAt: try stored.instant("updated_at"))
        self.init(account: account, passwordHash: try row.string("password_hash"), sealedSecret: try row.optionalBlob("totp_secret") ?? [])
    }

    /// The clear facts sealed into the TOTP secret's associated data: name, role, merchants, status
    /// and password hash, each length-prefixed. Changing any of them in the database makes the
    /// secret fail to open, and the operator can then neither sign in nor use a session.
    public var binding: [UInt8] {
        Self.binding(account, passwordHash: passwordHash)
    }

    /// ``binding`` of `account` with `passwordHash`.
    public static func binding(_ account: Operator, passwordHash: String) -> [UInt8] {
        let fields = [account.name, account.role.rawValue, account.merchantIDs?.joined(separator: ",") ?? "*", account.status.rawValue, passwordHash]
        return fields.flatMap { field -> [UInt8] in
            let bytes = Array(field.utf8)
            return withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
    }

    /// `merchant_ids` as stored: the ids joined by commas, or nil for every merchant.
    public var storedMerchantIDs: String? { account.merchantIDs?.joined(separator: ",") }
}

extension ConsoleSession {
    /// The row of `console_sessions` as both engines store it.
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("console_sessions", idColumn: "token_hash")
        self.init(
            tokenHash: stored.id, operatorID: try row.string("operator_id"), createdAt: try stored.instant("created_at"),
            lastSeenAt: try stored.instant("last_seen_at"), expiresAt: try stored.instant("expires_at"))
    }
}
