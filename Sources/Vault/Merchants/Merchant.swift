public import Foundation

/// A merchant: the tenant that owns cards, schedules, keys and API keys.
public struct Merchant: Sendable, Equatable, Codable {
    /// Whether the merchant may still use the vault.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// In service.
        case active
        /// Off-boarded: its data key is destroyed and its cards are unreadable.
        case offboarded
    }

    /// Public identifier (`mer_...`).
    public var id: String
    /// Small integer used to derive per-merchant subkeys.
    public var sequence: Int64
    /// Unique operator-facing name.
    public var name: String
    /// Whether it is in service.
    public var status: Status
    /// Which gateway adapter charges for it, and where.
    public var gateway: GatewaySettings
    /// IANA zone for dates, expiry checks and schedules.
    public var timeZone: String
    /// Where webhook events are POSTed.
    public var callbackURL: String?
    /// Whether registrations verify the card with the gateway unless the request says otherwise.
    public var verifyOnRegistration: Bool
    /// Whether the merchant may send credits: refunds not tied to an earlier sale (a gateway
    /// `credit`). Off unless an operator turns it on.
    public var allowsCredit = false
    /// When it was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    /// Creates a merchant value.
    public init(
        id: String, sequence: Int64, name: String, status: Status, gateway: GatewaySettings, timeZone: String,
        callbackURL: String?, verifyOnRegistration: Bool, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.sequence = sequence
        self.name = name
        self.status = status
        self.gateway = gateway
        self.timeZone = timeZone
        self.callbackURL = callbackURL
        self.verifyOnRegistration = verifyOnRegistration
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A merchant's gateway choice. Credentials are kept apart, sealed under the merchant's data key.
public struct GatewaySettings: Sendable, Equatable, Codable {
    /// The currency of a merchant that names none: US dollars.
    public static let defaultCurrencyCode = "USD"

    /// Adapter name, one of ``MerchantGatewayRules/names``.
    public var name: String
    /// Endpoint override; nil means the adapter's default.
    public var url: String?
    /// The currency of the merchant's gateway account: card verifications (a zero or one-minor-unit
    /// authorization) are sent in it, since an account in another currency refuses them all.
    public var currency: Currency

    /// Creates settings; the currency is US dollars unless given.
    public init(name: String, url: String? = nil, currency: Currency? = nil) {
        self.name = name
        self.url = url
        self.currency = currency ?? Self.defaultCurrency
    }

    /// US dollars.
    public static var defaultCurrency: Currency {
        // A code of the ISO 4217 table: the lookup cannot fail.
        (try? Currency(code: defaultCurrencyCode)) ?? Currency.all[0]
    }
}

/// Rules a merchant name follows: 1-64 characters of letters, digits, `.`, `_`, `-`, and not
/// card-number-shaped (the name is in audit details and logs, in clear).
public enum MerchantName {
    /// True when `name` is acceptable.
    public static func isValid(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        } && !CardNumberShape.contains(name)
    }
}
