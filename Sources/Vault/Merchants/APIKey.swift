public import Foundation

/// What an API key may do. Each route declares the roles it admits where it is declared (the HTTP
/// layer's route groups); these are what the declarations grant.
public enum APIKeyRole: String, Sendable, Codable, CaseIterable {
    /// Everything within its merchant.
    case admin
    /// Reads of card metadata, custom fields, transactions, schedules, statistics and charge runs;
    /// never a write, a card number or the audit trail.
    case readonly
    /// Starting and following charge runs, nothing else.
    case runner
}

/// An API key as stored: never the secret, only its hash.
public struct APIKeyRecord: Sendable, Equatable, Codable {
    /// The public part of the key, also its primary key (`key_...`).
    public var id: String
    /// The merchant it belongs to.
    public var merchantID: String
    /// What it may do.
    public var role: APIKeyRole
    /// When it was issued.
    public var createdAt: Date
    /// When it was revoked, if it was.
    public var revokedAt: Date?
    /// What the operator called it (who holds it, what for), if anything; not bound: it grants nothing.
    public var label: String?
    /// When it stops authenticating, if ever. Bound into the row (``APIKeyBinding``): it grants access.
    public var expiresAt: Date?
    /// When it last authenticated a request, recorded at most once a minute; not bound.
    public var lastUsedAt: Date?

    /// Creates a record.
    public init(
        id: String, merchantID: String, role: APIKeyRole, createdAt: Date, revokedAt: Date? = nil, label: String? = nil,
        expiresAt: Date? = nil, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.role = role
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.label = label
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether the key has expired at `now` (an expired key is refused like a revoked one).
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}

/// A freshly issued key: the record plus the bearer secret, shown once and never stored.
public struct IssuedAPIKey: Sendable {
    /// The stored record.
    public var record: APIKeyRecord
    /// `vk_<id>_<secret>`, what clients send as `Authorization: Bearer`.
    public var bearer: String
    /// What is kept of `bearer`: a keyed MAC of its SHA-256 (``APIKeyBinding``).
    public var storedSecret: [UInt8]
    /// The MAC binding the record's id, merchant, role and dates (``APIKeyBinding``).
    public var binding: [UInt8]
}

/// An API key row as stored: the record, what is kept of the secret and how, and the row's binding.
public struct StoredAPIKey: Sendable, Equatable {
    /// How `secret` was made.
    public enum SecretScheme: Int, Sendable {
        /// An unkeyed SHA-256 of the bearer and no binding: a row of an earlier build, upgraded at start.
        case legacySHA256 = 0
        /// A keyed MAC of the bearer's SHA-256, with a binding of the row (``APIKeyBinding``).
        case bound = 1
    }

    /// The record.
    public var record: APIKeyRecord
    /// What is kept of the bearer.
    public var secret: [UInt8]
    /// How `secret` was made.
    public var scheme: SecretScheme
    /// The row's binding; nil for a legacy row.
    public var binding: [UInt8]?

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(record: APIKeyRecord, secret: [UInt8], scheme: SecretScheme, binding: [UInt8]?) {
        self.record = record
        self.secret = secret
        self.scheme = scheme
        self.binding = binding
    }
}

/// The shape of bearer API keys.
///
/// A key reads `vk_<16 base32 id>_<32 base32 secret>` (80 + 160 random bits). The id finds the
/// row; ``APIKeyBinding`` issues keys and checks a bearer against its row.
public enum APIKeys {
    /// A new random bearer and its record for `merchantID` with `role` (not yet bound: see ``APIKeyBinding/issue(merchantID:role:now:)``).
    static func newKey(
        merchantID: String, role: APIKeyRole, now: Date, label: String? = nil, expiresAt: Date? = nil
    ) -> (record: APIKeyRecord, bearer: String) {
        let id = Encoding.base32(RandomBytes.make(10))
        let secret = Encoding.base32(RandomBytes.make(20))
        let record = APIKeyRecord(id: "key_" + id, merchantID: merchantID, role: role, createdAt: now, label: label, expiresAt: expiresAt)
        return (record, "vk_\(id)_\(secret)")
    }

    /// The stored key id a bearer string claims to be, or nil when it is not shaped like a key.
    public static func keyID(ofBearer bearer: String) -> String? {
        // vk_ + 16 id characters + _ + 32 secret characters, neither part containing "_".
        let bytes = Array(bearer.utf8)
        guard bytes.count == 52, bytes[0] == UInt8(ascii: "v"), bytes[1] == UInt8(ascii: "k"), bytes[2] == UInt8(ascii: "_"),
            bytes[19] == UInt8(ascii: "_"), !bytes[3..<19].contains(UInt8(ascii: "_")), !bytes[20...].contains(UInt8(ascii: "_"))
        else { return nil }
        return "key_" + String(decoding: bytes[3..<19], as: UTF8.self)
    }
}
