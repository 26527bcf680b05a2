public import Foundation

/// A secure card as stored: clear metadata plus sealed blobs.
public struct SecureCardRow: Sendable, Equatable {
    /// Token.
    public var reference: String
    /// Owner.
    public var merchantID: String
    /// Merchant's key.
    public var merchantReference: String
    /// Status.
    public var status: SecureCard.Status
    /// Brand.
    public var cardType: CardBrand
    /// First six.
    public var bin: String
    /// Last four.
    public var last4: String
    /// Masked PAN.
    public var maskedNumber: String
    /// Expiry.
    public var expiry: CardExpiry
    /// Capture method.
    public var entryMode: EntryMode
    /// Keyed hash of the PAN.
    public var fingerprint: String
    /// Data-key version of the sealed blobs.
    public var keyVersion: Int
    /// PAN and holder name, sealed; nil once purged.
    public var sealedCard: [UInt8]?
    /// Customer and custom fields, sealed.
    public var sealedDetails: [UInt8]?
    /// Verification outcome.
    public var verification: CardVerificationRecord?
    /// Timestamps.
    public var createdAt: Date
    /// Last change.
    public var updatedAt: Date
    /// Deletion time.
    public var deletedAt: Date?
    /// Purge time.
    public var purgedAt: Date?
    /// Insertion order, for pagination.
    public var sequence: Int64
    /// Whether `sealedCard` was sealed with the clear metadata as associated data (every record
    /// sealed now; older ones are bound at start-up).
    public var metadataBound: Bool = true
    /// The holder name's blind-index MACs (``HolderNameIndex``) to store with the card data; nil
    /// leaves the stored ones as they are (an update of personal details only).
    public var holderNameMACs: [[UInt8]]? = nil

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        reference: String, merchantID: String, merchantReference: String, status: SecureCard.Status, cardType: CardBrand,
        bin: String, last4: String, maskedNumber: String, expiry: CardExpiry, entryMode: EntryMode, fingerprint: String,
        keyVersion: Int, sealedCard: [UInt8]?, sealedDetails: [UInt8]?, verification: CardVerificationRecord?, createdAt: Date,
        updatedAt: Date, deletedAt: Date?, purgedAt: Date?, sequence: Int64, metadataBound: Bool = true,
        holderNameMACs: [[UInt8]]? = nil
    ) {
        self.reference = reference
        self.merchantID = merchantID
        self.merchantReference = merchantReference
        self.status = status
        self.cardType = cardType
        self.bin = bin
        self.last4 = last4
        self.maskedNumber = maskedNumber
        self.expiry = expiry
        self.entryMode = entryMode
        self.fingerprint = fingerprint
        self.keyVersion = keyVersion
        self.sealedCard = sealedCard
        self.sealedDetails = sealedDetails
        self.verification = verification
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.purgedAt = purgedAt
        self.sequence = sequence
        self.metadataBound = metadataBound
        self.holderNameMACs = holderNameMACs
    }
}

/// How to find secure cards.
public struct SecureCardQuery: Sendable {
    /// Matches merchantReference (prefix), last4 or bin, or every token of a holder name.
    public var text: String?
    /// An exact token.
    public var cardReference: String?
    /// Include deleted cards.
    public var includeDeleted = false
    /// Start after this insertion sequence.
    public var afterSequence: Int64?
    /// Page size.
    public var limit = 20
    /// A holder name searched for (`holderName`): only cards whose name has every token of it.
    public var holderName: String?
    /// The blind-index MACs of ``holderName``'s tokens (computed by the service).
    public var holderNameMACs: [[UInt8]]?
    /// The blind-index MACs of ``text``'s tokens, so `q` also finds holder names (computed by the service).
    public var textNameMACs: [[UInt8]]?

    /// Creates a query.
    public init(text: String? = nil, cardReference: String? = nil, includeDeleted: Bool = false, afterSequence: Int64? = nil, limit: Int = 20) {
        self.text = text
        self.cardReference = cardReference
        self.includeDeleted = includeDeleted
        self.afterSequence = afterSequence
        self.limit = limit
    }
}

/// Schedules that still use a card (`pending_confirmation`, `active`, `paused`, `past_due`).
public struct SchedulesInUse: Error, Equatable, Sendable {
    /// Their ids.
    public var scheduleIDs: [String]

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        scheduleIDs: [String]
    ) {
        self.scheduleIDs = scheduleIDs
    }
}

/// Persistence of secure cards. Every change records its audit event atomically.
public protocol SecureCardStore: Sendable {
    /// Inserts a new card with its change's audit and webhook events (built by the domain: the
    /// engine only stores them); throws `SecureCardError.referenceTaken` when the merchantReference is live.
    func insertSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws
    /// Replaces a live card's mutable columns (matched by token and merchant), with its change's events.
    func updateSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws
    /// The live card with this merchantReference.
    func secureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow?
    /// The card with this token (live or deleted).
    func secureCard(merchantID: String, reference: String) async throws -> SecureCardRow?
    /// The cards with these tokens (live or deleted), in one read (the charge runner opens a
    /// claimed batch's cards at once); tokens without a card of the merchant are left out.
    func secureCards(merchantID: String, references: [String]) async throws -> [SecureCardRow]
    /// The most recently deleted card with this merchantReference whose data was not purged.
    func deletedSecureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow?
    /// A page of cards in insertion order.
    func secureCards(merchantID: String, query: SecureCardQuery) async throws -> [SecureCardRow]
    /// Deletes a live card; with `cancelSchedules` cancels the schedules using it, otherwise throws
    /// `SchedulesInUse` when there are any; with `purge` destroys its sealed data (a card deleted
    /// before and not yet purged is purged too).
    /// The deletion's audit event, and its webhook event naming the schedules cancelled, come from
    /// `deletion`; each cancellation is the domain's `ScheduleTransition`.
    /// - Returns: the ids of cancelled schedules.
    func deleteSecureCard(_ deletion: SecureCardDeletion, cancelSchedules: Bool) async throws -> [String]
    /// Up to `limit` cards of a merchant sealed under a data key older than `keyVersion`.
    func secureCardsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [SecureCardRow]
    /// Replaces the sealed blobs of cards still at the key version they were read with.
    func resealSecureCards(_ rows: [(old: SecureCardRow, new: SecureCardRow)]) async throws -> Int
    /// Up to `limit` cards after insertion sequence `afterSequence` whose sealed card data does not
    /// bind their clear metadata yet, in insertion order.
    func secureCardsWithUnboundMetadata(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow]
    /// Replaces a card's sealed card data by one bound to its metadata, if the row is unchanged.
    func bindSecureCardMetadata(_ old: SecureCardRow, sealedCard: [UInt8]) async throws -> Bool
    /// Up to `limit` cards after insertion sequence `afterSequence` whose holder name is not in the
    /// blind index yet (written before it, or marked for re-indexing), with sealed data, in order.
    func secureCardsWithoutNameIndex(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow]
    /// Stores a card's holder-name MACs, if its sealed card data is still the one read.
    func indexSecureCardName(_ row: SecureCardRow, macs: [[UInt8]]) async throws -> Bool
    /// Records the audit event of a read of card data without waiting for it to be stored: it is
    /// appended with the next group commit (lost only if the process crashes before that).
    func recordRead(_ audit: AuditEntry)
}
