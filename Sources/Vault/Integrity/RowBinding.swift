/// Money-moving rows that someone who can write to the database but holds no key cannot alter
/// unnoticed: a keyed MAC over the fields that decide who is charged, how much and where, stored
/// in the row's `binding` column.
///
/// One mechanism for every bound row (schedules, their steps): a keyed BLAKE2b-256 under a subkey
/// (`crypto_kdf`, context `rowbind1`) of the owning merchant's fingerprint key, which exists only
/// wrapped under the master key. The MAC covers the row's kind, its merchant and its bound fields,
/// each length-prefixed, so no two different rows encode alike. A row pointed at another card,
/// moved to another merchant (the MAC is under the other merchant's key), re-priced or given a row
/// of another kind fails its check. The domain computes the binding when it writes the row and
/// checks it before anything is sent to a gateway; the storage engines only store the column.
///
/// Cost: one MAC over a few dozen bytes per row, the subkey derived once per merchant and cached
/// (``DerivedKeyCache``).
public struct RowBinding: Sendable {
    /// The `crypto_kdf` context of the MAC key.
    public static let context = "rowbind1"

    private let macKeys: DerivedKeyCache

    /// Binds with subkeys of the merchants' fingerprint keys from `keyring`.
    public init(keyring: Keyring) {
        // Fingerprint keys have one version, never rotated: a binding never needs re-computing.
        macKeys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.context, parentVersion: 1)
    }

    /// The binding of a row of `kind` owned by `merchantID` with `fields` (in a fixed order).
    /// - Throws: `KeyringError.keyUnavailable` when the merchant's keys are destroyed; crypto errors.
    public func binding(kind: String, merchantID: String, fields: [String]) async throws -> [UInt8] {
        try Self.mac(kind: kind, merchantID: merchantID, fields: fields, key: try await macKeys.key(merchantID: merchantID))
    }

    /// Whether `binding` is the binding of that row: false for a missing binding, a row altered
    /// since it was bound, and a merchant whose keys are destroyed.
    public func isIntact(kind: String, merchantID: String, fields: [String], binding: [UInt8]?) async -> Bool {
        guard let binding, let key = try? await macKeys.key(merchantID: merchantID),
            let expected = try? Self.mac(kind: kind, merchantID: merchantID, fields: fields, key: key)
        else { return false }
        return constantTimeEquals(expected, binding)
    }

    static func mac(kind: String, merchantID: String, fields: [String], key: SecureBytes) throws -> [UInt8] {
        try KeyedHash.blake2b(message(kind: kind, merchantID: merchantID, fields: fields), key: key, length: 32)
    }

    /// What the MAC covers: the kind, the merchant and each field as `<UTF-8 length>:<bytes>\n`,
    /// appended in place (no array or string per field: the runner checks two rows per step).
    static func message(kind: String, merchantID: String, fields: [String]) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(fields.reduce(kind.utf8.count + merchantID.utf8.count + 16) { $0 + $1.utf8.count + 8 })
        append(kind, to: &message)
        append(merchantID, to: &message)
        for field in fields { append(field, to: &message) }
        return message
    }

    /// `field` length-prefixed: its UTF-8 length in decimal, `:`, its bytes, `\n`.
    private static func append(_ field: String, to message: inout [UInt8]) {
        var field = field
        field.withUTF8 { bytes in
            message.append(contentsOf: String(bytes.count).utf8)
            message.append(0x3A)
            message.append(contentsOf: bytes)
            message.append(0x0A)
        }
    }
}
