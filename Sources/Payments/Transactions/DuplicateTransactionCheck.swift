public import Foundation
public import Vault

/// Duplicate protection without an Idempotency-Key (as a gateway refuses a duplicate
/// unless told `forceOnDuplicate`): a sale, authorization or credit of the same amount and currency on
/// the same card within ``window`` of a live one is refused unless the request says
/// `allowDuplicate: true`.
///
/// Transactions are matched by a keyed BLAKE2b MAC (16 bytes) of type, currency, amount and PAN
/// under a per-merchant key derived with `crypto_kdf` (context `dupchk01`) from the merchant's
/// fingerprint key, as the idempotency MAC key is (``DerivedKeyCache``); the key is never stored,
/// so the stored MAC lets a database thief test no candidate card number.
public struct DuplicateTransactionCheck: Sendable {
    /// The `crypto_kdf` context of the MAC key.
    public static let context = "dupchk01"
    /// The default window: 5 minutes.
    public static let defaultWindow: TimeInterval = 300

    /// How long after a transaction the same one is a duplicate; 0 turns the check off (the MAC is
    /// still stored, so turning it on again finds recent transactions).
    public let window: TimeInterval
    private let keys: DerivedKeyCache

    /// A check keyed from `keyring`'s fingerprint keys.
    public init(keyring: Keyring, window: TimeInterval = DuplicateTransactionCheck.defaultWindow) {
        self.window = window
        keys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.context)
    }

    /// The MAC that identifies "the same transaction" for a merchant.
    /// - Throws: `KeyringError.keyUnavailable` for an off-boarded merchant; crypto errors.
    public func mac(type: TransactionType, amount: Int64, currency: Currency, pan: PrimaryAccountNumber, merchantID: String) async throws -> [UInt8] {
        let key = try await keys.key(merchantID: merchantID)
        var message = Array("\(type.rawValue)|\(currency.code)|\(amount)|".utf8)
        message += pan.digits.utf8
        return try KeyedHash.blake2b(message, key: key, length: 16)
    }

    /// Transactions recorded at or after this instant are compared; nil when the check is off.
    public func comparedSince(_ now: Date) -> Date? {
        window > 0 ? now.addingTimeInterval(-window) : nil
    }
}
