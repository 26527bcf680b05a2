public import Foundation

/// A person who signs in to the console: an individual account (never shared), with a role, the
/// merchants it may see, its sign-in state and its second factor.
public struct Operator: Sendable, Equatable {
    /// Whether the account may sign in.
    public enum Status: String, Sendable, Codable, CaseIterable {
        case active
        case disabled
    }

    /// Public identifier (`op_...`).
    public var id: String
    /// The sign-in name, unique: 1-64 letters, digits, `.`, `_` or `-`.
    public var name: String
    /// What it may do.
    public var role: OperatorRole
    /// The merchants it may see and act for; nil for every merchant.
    public var merchantIDs: [String]?
    /// Active or disabled.
    public var status: Status
    /// Failed sign-ins since the last success or lock.
    public var failedSignIns: Int
    /// Sign-ins are refused until this instant.
    public var lockedUntil: Date?
    /// The TOTP step of the last code accepted: a code of that step or an earlier one is refused.
    public var lastCodeStep: Int64?
    /// When it was created and last changed.
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates a value (for the service and the storage engines).
    public init(
        id: String, name: String, role: OperatorRole, merchantIDs: [String]?, status: Status, failedSignIns: Int = 0, lockedUntil: Date? = nil,
        lastCodeStep: Int64? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.merchantIDs = merchantIDs
        self.status = status
        self.failedSignIns = failedSignIns
        self.lockedUntil = lockedUntil
        self.lastCodeStep = lastCodeStep
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The audit actor of this operator's actions.
    public var actor: String { "operator:\(name)" }

    /// Whether it may see and act for `merchantID`.
    public func covers(merchantID: String) -> Bool {
        merchantIDs.map { $0.contains(merchantID) } ?? true
    }

    /// Whether sign-ins are refused at `now` because of failed attempts.
    public func isLocked(at now: Date) -> Bool {
        lockedUntil.map { $0 > now } ?? false
    }
}

/// An operator as stored: with its Argon2id password hash and its sealed TOTP secret.
public struct OperatorRow: Sendable {
    public var account: Operator
    /// libsodium's `crypto_pwhash_str` output (`$argon2id$...`): algorithm, cost, salt and hash.
    public var passwordHash: String
    /// The TOTP secret, sealed (``Keyring/sealOperatorSecret(_:operatorID:)``).
    public var sealedSecret: [UInt8]

    public init(account: Operator, passwordHash: String, sealedSecret: [UInt8]) {
        self.account = account
        self.passwordHash = passwordHash
        self.sealedSecret = sealedSecret
    }
}
