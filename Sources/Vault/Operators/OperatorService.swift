public import Foundation

/// Operators and their console sign-ins: the one place that decides who may sign in, with what,
/// and for how long. The CLI and the console both go through it.
public struct OperatorService: Sendable {
    /// What an authenticator app enrols from, shown once when an operator is created or reset.
    public struct Enrollment: Sendable {
        /// The TOTP secret in base32 (upper case, as apps expect it typed).
        public var secret: String
        /// The `otpauth://totp/...` URI.
        public var uri: String
    }

    /// A signed-in operator: the session's cookie token (shown to the browser only) and the account.
    public struct SignIn: Sendable {
        public var token: String
        public var account: Operator
    }

    /// The issuer an authenticator app shows beside the account.
    public static let issuer = "Vault"

    private let store: any OperatorStore & MerchantStore & AuditStore
    private let keyring: Keyring
    /// The limits of sign-ins and sessions.
    public let policy: ConsolePolicy
    private let passwordCost: OperatorPassword.Cost

    /// - Parameter passwordCost: `.interactive` except in tests.
    public init(store: any OperatorStore & MerchantStore & AuditStore, keyring: Keyring, policy: ConsolePolicy = .init(), passwordCost: OperatorPassword.Cost = .interactive) {
        self.store = store
        self.keyring = keyring
        self.policy = policy
        self.passwordCost = passwordCost
    }

    /// Creates an operator with a new TOTP secret.
    /// - Parameter merchantNames: the merchants it may see; empty for every merchant.
    /// - Throws: ``OperatorError`` (`invalidName`, `nameTaken`, `unknownMerchant`, `weakPassword`).
    public func create(
        name: String, role: OperatorRole, merchantNames: [String], password: String, actor: String, now: Date = Date()
    ) async throws -> (account: Operator, enrollment: Enrollment) {
        guard MerchantName.isValid(name) else { throw OperatorError.invalidName }
        if let weakness = OperatorPassword.weakness(of: password) { throw OperatorError.weakPassword(weakness) }
        var merchantIDs: [String]?
        if !merchantNames.isEmpty {
            var ids: [String] = []
            for merchantName in merchantNames {
                guard let merchant = try await store.merchant(named: merchantName) else { throw OperatorError.unknownMerchant(merchantName) }
                if !ids.contains(merchant.id) { ids.append(merchant.id) }
            }
            merchantIDs = ids
        }
        if try await store.operatorRow(named: name) != nil { throw OperatorError.nameTaken(name) }
        let account = Operator(
            id: OpaqueToken.make(prefix: "op_", randomBits: 80), name: name, role: role, merchantIDs: merchantIDs, status: .active, createdAt: now,
            updatedAt: now)
        let secret = RandomBytes.make(TOTP.secretLength)
        let passwordHash = try OperatorPassword.hash(password, cost: passwordCost)
        let row = OperatorRow(
            account: account, passwordHash: passwordHash,
            sealedSecret: try keyring.sealOperatorSecret(
                secret, operatorID: account.id, binding: OperatorRow.binding(account, passwordHash: passwordHash)))
        var details = ["name": name, "role": role.rawValue]
        details["merchants"] = merchantIDs?.joined(separator: ",") ?? "all"
        do {
            try await store.insertOperator(row, audit: audit(actor, "operator.created", account, details))
        } catch let error as any StorageError where error.isUniqueViolation {
            throw OperatorError.nameTaken(name)
        }
        return (account, enrollment(secret, name: name))
    }

    /// Every operator, by name.
    public func list() async throws -> [Operator] {
        try await store.operatorRows().map(\.account)
    }

    /// Disables an operator and ends its sessions.
    /// - Returns: false when it was disabled already (nothing changed).
    /// - Throws: ``OperatorError/notFound(_:)``.
    @discardableResult
    public func disable(name: String, actor: String, now: Date = Date()) async throws -> Bool {
        guard let row = try await store.operatorRow(named: name) else { throw OperatorError.notFound(name) }
        guard row.account.status == .active else { return false }
        // Resealed with the new status in its binding (a row whose binding fails stays unusable).
        var disabled = row.account
        disabled.status = .disabled
        let sealed: [UInt8]
        if let secret = try? keyring.openOperatorSecret(row.sealedSecret, operatorID: row.account.id, binding: row.binding) {
            sealed = try keyring.sealOperatorSecret(secret, operatorID: row.account.id, binding: OperatorRow.binding(disabled, passwordHash: row.passwordHash))
        } else {
            sealed = row.sealedSecret
        }
        return try await store.disableOperator(id: row.account.id, sealedSecret: sealed, at: now, audit: audit(actor, "operator.disabled", row.account))
    }

    /// Gives an operator a new password and a new TOTP secret, re-enables and unlocks it, and ends
    /// its sessions (a lost phone, a forgotten password, a departure reversed).
    /// - Throws: ``OperatorError`` (`notFound`, `weakPassword`).
    public func reset(name: String, password: String, actor: String, now: Date = Date()) async throws -> (account: Operator, enrollment: Enrollment) {
        guard let row = try await store.operatorRow(named: name) else { throw OperatorError.notFound(name) }
        if let weakness = OperatorPassword.weakness(of: password) { throw OperatorError.weakPassword(weakness) }
        let secret = RandomBytes.make(TOTP.secretLength)
        let passwordHash = try OperatorPassword.hash(password, cost: passwordCost)
        var active = row.account
        active.status = .active
        try await store.resetOperator(
            id: row.account.id, passwordHash: passwordHash,
            sealedSecret: try keyring.sealOperatorSecret(secret, operatorID: row.account.id, binding: OperatorRow.binding(active, passwordHash: passwordHash)),
            at: now, audit: audit(actor, "operator.reset", row.account))
        guard let updated = try await store.operatorRow(id: row.account.id) else { throw OperatorError.notFound(name) }
        return (updated.account, enrollment(secret, name: name))
    }

    /// Signs an operator in with its password and a current authenticator code, both required.
    ///
    /// Every refusal is the same ``OperatorError/signInRefused``. A wrong password or code counts
    /// toward the lockout (``ConsolePolicy/lockoutAttempts`` in a row lock the account for
    /// ``ConsolePolicy/lockoutMinutes``), and each is an audit event; a locked or disabled account
    /// is refused before its password is checked. A code is accepted once: a second sign-in with
    /// the code of a step already used is refused.
    public func signIn(name: String, password: String, code: String, now: Date = Date()) async throws -> SignIn {
        guard MerchantName.isValid(name), let row = try await store.operatorRow(named: name) else {
            // The same work as for a real account, so the answer's timing does not tell names apart.
            _ = OperatorPassword.verify(password, hash: Self.unknownNameHash)
            try await store.appendAudit(
                AuditEntry(merchantID: nil, actor: "console", action: "operator.sign_in_failed", objectType: "operator", objectID: nil,
                           details: ["reason": "unknown_name"]))
            throw OperatorError.signInRefused
        }
        let account = row.account
        guard account.status == .active, !account.isLocked(at: now) else {
            try await store.appendAudit(
                audit(account.actor, "operator.sign_in_failed", account, ["reason": account.status == .active ? "locked" : "disabled"]))
            throw OperatorError.signInRefused
        }
        guard let secret = try? keyring.openOperatorSecret(row.sealedSecret, operatorID: account.id, binding: row.binding) else {
            // The row was edited in the database (role, merchants, status or password hash), or its
            // secret was sealed under a KEK version no longer held: refused, and said so in the trail.
            try await store.appendAudit(audit("system", "operator.integrity_failed", account))
            throw OperatorError.signInRefused
        }
        let passwordHolds = OperatorPassword.verify(password, hash: row.passwordHash)
        let step = TOTP.matchingStep(code: code, secret: secret, at: now)
        guard passwordHolds, let step else {
            try await fail(account, reason: passwordHolds ? "wrong_code" : "wrong_password", now: now)
            throw OperatorError.signInRefused
        }
        let token = ConsoleSessionToken.make()
        let session = ConsoleSession(
            tokenHash: ConsoleSessionToken.hash(token), operatorID: account.id, createdAt: now, lastSeenAt: now,
            expiresAt: now.addingTimeInterval(Double(policy.absoluteHours) * 3600))
        guard try await store.recordSignIn(id: account.id, codeStep: step, session: session, at: now, audit: audit(account.actor, "operator.signed_in", account))
        else {
            // The code's step was used already (a replay, or a second sign-in with the same code).
            try await fail(account, reason: "code_reused", now: now)
            throw OperatorError.signInRefused
        }
        return SignIn(token: token, account: account)
    }

    /// The operator of a live session: the token is well formed, the session exists, was used
    /// within ``ConsolePolicy/idleMinutes``, is within its absolute lifetime, and its operator is
    /// active. Records this use. A session past either limit is deleted.
    /// - Returns: nil for anything else.
    public func session(token: String, now: Date = Date()) async throws -> (account: Operator, session: ConsoleSession)? {
        guard ConsoleSessionToken.isWellFormed(token) else { return nil }
        let hash = ConsoleSessionToken.hash(token)
        guard let session = try await store.consoleSession(tokenHash: hash) else { return nil }
        let idleSince = now.addingTimeInterval(-Double(policy.idleMinutes) * 60)
        guard try await store.touchConsoleSession(tokenHash: hash, at: now, idleSince: idleSince) else {
            try await store.deleteConsoleSession(tokenHash: hash, audit: nil)
            return nil
        }
        // The row is checked on every request: a role or merchants raised in the database after
        // sign-in end the session's use instead of widening it.
        guard let row = try await store.operatorRow(id: session.operatorID), row.account.status == .active,
              (try? keyring.openOperatorSecret(row.sealedSecret, operatorID: row.account.id, binding: row.binding)) != nil
        else { return nil }
        return (row.account, session)
    }

    /// Ends a session (sign-out), with its audit event.
    public func signOut(token: String, account: Operator) async throws {
        guard ConsoleSessionToken.isWellFormed(token) else { return }
        try await store.deleteConsoleSession(tokenHash: ConsoleSessionToken.hash(token), audit: audit(account.actor, "operator.signed_out", account))
    }

    /// Records a console request refused for a signed-in operator (a missing or wrong CSRF token,
    /// a role that does not allow the action): attempts beyond one's rights are audited too.
    public func recordRefusal(account: Operator, path: String, reason: String) async throws {
        try await record(account: account, action: "console.request_refused", details: ["path": path, "reason": reason])
    }

    /// Records a console action of `account` that no domain service records itself (reading the
    /// audit trail), as an event under the operator.
    public func record(account: Operator, action: String, details: [String: String] = [:]) async throws {
        try await store.appendAudit(audit(account.actor, action, account, details))
    }

    private func fail(_ account: Operator, reason: String, now: Date) async throws {
        let until = now.addingTimeInterval(Double(policy.lockoutMinutes) * 60)
        _ = try await store.recordFailedSignIn(
            id: account.id, lockoutAttempts: policy.lockoutAttempts, lockedUntil: until, at: now,
            audit: audit(account.actor, "operator.sign_in_failed", account, ["reason": reason]),
            lockAudit: audit("system", "operator.locked", account, ["until": Timestamp.string(until)]))
    }

    private func audit(_ actor: String, _ action: String, _ account: Operator, _ details: [String: String] = [:]) -> AuditEntry {
        AuditEntry(merchantID: nil, actor: actor, action: action, objectType: "operator", objectID: account.id, details: details)
    }

    private func enrollment(_ secret: [UInt8], name: String) -> Enrollment {
        Enrollment(
            secret: Encoding.base32(secret).uppercased(), uri: TOTP.provisioningURI(secret: secret, account: name, issuer: Self.issuer))
    }

    /// A hash of a random password, checked against when the name is unknown.
    private static let unknownNameHash: String = (try? OperatorPassword.hash(Encoding.hex(RandomBytes.make(16)), cost: .interactive)) ?? ""
}
