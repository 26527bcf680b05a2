public import Foundation

/// Where operators and their console sessions are kept. The domain (``OperatorService``) decides
/// every change; an engine stores rows and applies each change as one guarded write with its audit
/// event.
public protocol OperatorStore: Sendable {
    /// Inserts a new operator with its `operator.created` audit event.
    /// - Throws: a ``StorageError`` whose `isUniqueViolation` is true when the name is taken.
    func insertOperator(_ row: OperatorRow, audit: AuditEntry) async throws

    /// The operator with this name, or nil.
    func operatorRow(named name: String) async throws -> OperatorRow?

    /// The operator with this id, or nil.
    func operatorRow(id: String) async throws -> OperatorRow?

    /// Every operator, by name.
    func operatorRows() async throws -> [OperatorRow]

    /// Disables the operator, stores its secret resealed for the disabled row, and deletes its
    /// sessions, with the audit event.
    /// - Returns: whether it was active.
    func disableOperator(id: String, sealedSecret: [UInt8], at: Date, audit: AuditEntry) async throws -> Bool

    /// Replaces the operator's sealed TOTP secret `old` by `new`, the same secret re-sealed under
    /// the current KEK version (a master key rotation), changing nothing else and writing no audit
    /// event (the rotation audits itself).
    /// - Returns: false when the row no longer holds `old` (changed since it was read).
    func resealOperatorSecret(id: String, old: [UInt8], new: [UInt8]) async throws -> Bool

    /// Replaces the operator's password hash and sealed TOTP secret, makes it active, clears its
    /// failed sign-ins, lock and last code step, and deletes its sessions, with the audit event.
    func resetOperator(id: String, passwordHash: String, sealedSecret: [UInt8], at: Date, audit: AuditEntry) async throws

    /// Counts one failed sign-in. When this failure is the `lockoutAttempts`-th in a row, the
    /// count starts again from zero and the operator is locked until `lockedUntil`, with
    /// `lockAudit` written too.
    /// - Returns: whether this failure locked the account.
    func recordFailedSignIn(id: String, lockoutAttempts: Int, lockedUntil: Date, at: Date, audit: AuditEntry, lockAudit: AuditEntry) async throws
        -> Bool

    /// A successful sign-in: only if the operator is active, not locked at `at`, and `codeStep` is
    /// later than the last code step accepted, records `codeStep`, clears the failed sign-ins and
    /// inserts `session`, with the audit event; nothing otherwise (a code used twice, even by two
    /// sign-ins at once, opens one session).
    /// - Returns: whether the session was created.
    func recordSignIn(id: String, codeStep: Int64, session: ConsoleSession, at: Date, audit: AuditEntry) async throws -> Bool

    /// The session with this token hash, or nil.
    func consoleSession(tokenHash: String) async throws -> ConsoleSession?

    /// Records a request made with the session at `at`, only while it was last seen after
    /// `idleSince` and expires after `at`.
    /// - Returns: whether the session is still alive (and so was touched).
    func touchConsoleSession(tokenHash: String, at: Date, idleSince: Date) async throws -> Bool

    /// Deletes the session, with the audit event when given (a sign-out; none for an expired one).
    func deleteConsoleSession(tokenHash: String, audit: AuditEntry?) async throws
}
