public import Foundation

/// A stored card's credential-on-file record for one gateway: the network transaction id of its
/// first use, sealed, and its masked form.
public struct StoredCredentialRow: Sendable, Equatable {
    /// The merchant.
    public var merchantID: String
    /// The secure card.
    public var secureCardReference: String
    /// The gateway name the id belongs to (ids of one gateway mean nothing to another).
    public var gateway: String
    /// The network transaction id, sealed under the merchant's data key.
    public var sealedNetworkTransactionID: [UInt8]
    /// The masked id, the only clear form.
    public var masked: String
    /// The vault transaction whose approval returned it.
    public var transactionID: String?
    /// When it was stored.
    public var createdAt: Date
    /// The keyed fingerprint of the card number it was the first use of; nil when recorded without
    /// one (a registration by sale, a first recurring charge, or before the vault kept them). A new
    /// card number drops every record of the card but one with the new number's fingerprint.
    public var cardFingerprint: String?

    /// Creates a row.
    public init(merchantID: String, secureCardReference: String, gateway: String, sealedNetworkTransactionID: [UInt8], masked: String,
                transactionID: String?, createdAt: Date, cardFingerprint: String? = nil) {
        self.cardFingerprint = cardFingerprint
        self.merchantID = merchantID
        self.secureCardReference = secureCardReference
        self.gateway = gateway
        self.sealedNetworkTransactionID = sealedNetworkTransactionID
        self.masked = masked
        self.transactionID = transactionID
        self.createdAt = createdAt
    }
}

/// Storage of stored-credential records (table `stored_credentials`).
public protocol StoredCredentialStore: Sendable {
    /// The record of a card for a gateway, if any.
    func storedCredential(merchantID: String, secureCardReference: String, gateway: String) async throws -> StoredCredentialRow?
    /// The records of several cards of a merchant for a gateway, in one read (the cards of a
    /// charge run's batch); cards without one are left out, in no particular order.
    func storedCredentials(merchantID: String, secureCardReferences: [String], gateway: String) async throws -> [StoredCredentialRow]
    /// Saves a record; with `replacing` false an existing record for the card and gateway is kept.
    func saveStoredCredential(_ row: StoredCredentialRow, replacing: Bool) async throws
    /// Records sealed with a data-key version below `keyVersion`, for re-encryption.
    func storedCredentialsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [StoredCredentialRow]
    /// Replaces a record's sealed id if it is still `old`; `false` when it changed meanwhile.
    func resealStoredCredential(_ row: StoredCredentialRow, old: [UInt8]) async throws -> Bool
}
