public import Foundation
public import Vault

/// The network transaction ids of stored cards' first uses (card-on-file), sealed under the
/// merchant's data key: recorded when a first use is approved, opened only to be sent with the
/// card's later merchant-initiated charges, shown only masked.
///
/// Not cardholder data, but it lets whoever also holds the card number present charges as the
/// merchant's standing instructions, so it is kept like card data (see `docs/decisions/gateways.md`).
public struct StoredCredentials: Sendable {
    static let kind = "stored_credential"
    private let store: any StoredCredentialStore
    /// The keyring credentials are sealed with (the card verifier binds its rows with the same keys).
    let keyring: Keyring

    /// Creates the service over `store`, sealing with `keyring`.
    public init(store: any StoredCredentialStore, keyring: Keyring) {
        self.store = store
        self.keyring = keyring
    }

    /// Keeps `networkTransactionID` as the card's credential with `gateway`.
    /// - Parameters:
    ///   - replacing: `true` for a new first use of the card (registration, new card data): it
    ///     replaces what was kept; `false` keeps an id already on file (a recurring charge sent
    ///     without one, racing another).
    ///   - cardNumber: the card number it was the first use of, when at hand (a verification of new
    ///     card data runs before the card is updated, and its record must survive the update).
    /// - Returns: `false` when the id is not a plausible network transaction id (1-255 printable
    ///   ASCII characters) and nothing was kept.
    @discardableResult
    public func record(
        _ networkTransactionID: String, secureCardReference: String, merchantID: String, gateway: String, transactionID: String?,
        replacing: Bool, cardNumber: PrimaryAccountNumber? = nil, now: Date = Date()
    ) async throws -> Bool {
        guard (1...255).contains(networkTransactionID.utf8.count),
              networkTransactionID.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
        let gateway = Self.gatewayName(gateway)
        var cardFingerprint: String?
        if let cardNumber { cardFingerprint = try await keyring.fingerprint(ofPAN: cardNumber.digits, merchantID: merchantID) }
        let sealed = try await keyring.sealRecord(
            Array(networkTransactionID.utf8), merchantID: merchantID, kind: Self.kind,
            recordID: Self.recordID(secureCardReference, gateway))
        try await store.saveStoredCredential(
            StoredCredentialRow(
                merchantID: merchantID, secureCardReference: secureCardReference, gateway: gateway, sealedNetworkTransactionID: sealed,
                masked: NetworkTransactionID.masked(networkTransactionID), transactionID: transactionID, createdAt: now,
                cardFingerprint: cardFingerprint),
            replacing: replacing)
        return true
    }

    /// The network transaction id of the card's first use with `gateway`, opened; `nil` when none
    /// is on file.
    public func originalNetworkTransactionID(secureCardReference: String, merchantID: String, gateway: String) async throws -> String? {
        let gateway = Self.gatewayName(gateway)
        guard let row = try await store.storedCredential(merchantID: merchantID, secureCardReference: secureCardReference, gateway: gateway)
        else { return nil }
        let opened = try await keyring.openRecord(
            row.sealedNetworkTransactionID, merchantID: merchantID, kind: Self.kind, recordID: Self.recordID(secureCardReference, gateway))
        return opened.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The network transaction ids kept for several cards of a merchant with `gateway`, opened, by
    /// card reference, read in one statement (the charge runner reads a batch's cards at once
    /// instead of one read per charge); cards without one are left out.
    public func originalNetworkTransactionIDs(secureCardReferences: [String], merchantID: String, gateway: String) async throws
        -> [String: String]
    {
        guard !secureCardReferences.isEmpty else { return [:] }
        let gateway = Self.gatewayName(gateway)
        var opened: [String: String] = [:]
        for row in try await store.storedCredentials(merchantID: merchantID, secureCardReferences: secureCardReferences, gateway: gateway) {
            let plain = try await keyring.openRecord(
                row.sealedNetworkTransactionID, merchantID: merchantID, kind: Self.kind, recordID: Self.recordID(row.secureCardReference, gateway))
            opened[row.secureCardReference] = plain.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
        return opened
    }

    /// Re-encrypts a merchant's records under its newest data key (after `keys rotate --data`).
    /// - Returns: how many records were resealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        var total = 0
        while true {
            let batch = try await store.storedCredentialsToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var changed = 0
            for old in batch {
                let recordID = Self.recordID(old.secureCardReference, old.gateway)
                let plain = try await keyring.openRecord(old.sealedNetworkTransactionID, merchantID: merchantID, kind: Self.kind, recordID: recordID)
                var new = old
                new.sealedNetworkTransactionID = try await keyring.sealRecord(plain, merchantID: merchantID, kind: Self.kind, recordID: recordID)
                if try await store.resealStoredCredential(new, old: old.sealedNetworkTransactionID) { changed += 1 }
            }
            total += changed
            if changed == 0 { return total }
        }
    }

    static func recordID(_ secureCardReference: String, _ gateway: String) -> String {
        secureCardReference + "/" + gateway
    }

    /// The catalogue name of a configured gateway name (`Authorize.Net` → `authorizenet`).
    static func gatewayName(_ name: String) -> String {
        GatewayCatalogue.entry(configuredName: name)?.name ?? name
    }
}
