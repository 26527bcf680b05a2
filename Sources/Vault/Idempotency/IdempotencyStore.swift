public import Foundation

/// What a POST with an `Idempotency-Key` finds when it starts, as stored.
public enum IdempotencyClaim: Sendable, Equatable {
    /// First use of the key: the request runs, then `completeIdempotentRequest` stores its answer.
    case started
    /// The key's request never finished and its holder's claim expired: the server running it died.
    /// The claim is now the caller's (its owner and expiry written), under the transaction id the
    /// first holder reserved, so the caller can find what that request left behind.
    case takenOver(transactionID: String)
    /// The same key and request already ran: its response, sealed under the merchant's data key.
    case replay(status: Int, sealedBody: [UInt8])
    /// The same key was used with a different request.
    case mismatch
    /// The first request with this key has not finished yet and its holder's claim has not expired.
    case inProgress
    /// The response was destroyed because the card it concerned was purged.
    case purged
}

/// Who holds an Idempotency-Key's claim while its request runs, and until when.
///
/// A live server finishes every request well inside the claim's lease; a claim still unfinished
/// after `expiresAt` belongs to a server that died mid-request, and the next retry takes it over
/// instead of answering "in progress" until the key is forgotten.
public struct IdempotencyClaimHolder: Sendable, Equatable {
    /// A random token naming this one claim: only its holder may complete or release it.
    public var owner: String
    /// When the claim is taken to be abandoned.
    public var expiresAt: Date
    /// The id a transaction created by the request takes, reserved with the claim so a retry
    /// after its server died finds the sale (or follow-up) that request started.
    public var transactionID: String

    /// Creates a value.
    public init(owner: String, expiresAt: Date, transactionID: String) {
        self.owner = owner
        self.expiresAt = expiresAt
        self.transactionID = transactionID
    }
}

/// A stored response to re-encrypt under a newer data key.
public struct SealedIdempotentResponse: Sendable, Equatable {
    /// The merchant's Idempotency-Key.
    public var key: String
    /// HTTP status.
    public var status: Int
    /// The sealed body.
    public var sealedBody: [UInt8]
    /// The data-key version that sealed it.
    public var keyVersion: Int

    /// Creates a value.
    public init(key: String, status: Int, sealedBody: [UInt8], keyVersion: Int) {
        self.key = key
        self.status = status
        self.sealedBody = sealedBody
        self.keyVersion = keyVersion
    }
}

/// A row written before request fingerprints were keyed: an unkeyed SHA-256 of the request and,
/// once completed, the response in the clear. Upgraded once at start-up.
public struct LegacyIdempotencyRow: Sendable, Equatable {
    /// Owner.
    public var merchantID: String
    /// The merchant's Idempotency-Key.
    public var key: String
    /// The unkeyed SHA-256 as stored.
    public var requestHash: [UInt8]
    /// HTTP status, when completed.
    public var status: Int?
    /// The clear response, when completed.
    public var body: [UInt8]?

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        merchantID: String, key: String, requestHash: [UInt8], status: Int?, body: [UInt8]?
    ) {
        self.merchantID = merchantID
        self.key = key
        self.requestHash = requestHash
        self.status = status
        self.body = body
    }
}

/// Remembers POST responses per merchant and key so that a retried request is answered, not re-run.
///
/// Nothing stored here lets a request be recognised without the merchant's keys: the request is
/// kept only as a keyed MAC and the response only sealed (see `IdempotencyService`).
public protocol IdempotencyStore: Sendable {
    /// Claims `key` for a request whose keyed MAC is `requestMAC`, held by `holder`.
    ///
    /// A new key is stored in progress under `holder`. A key in progress whose holder's claim
    /// expired before `now` (or that names no holder: a row of an earlier build, whose servers
    /// cannot run against this schema) is taken over: its owner and expiry become `holder`'s, its
    /// reserved transaction id is kept. Atomic across servers: of many claims at once, one starts
    /// or takes over.
    /// - Parameter legacyRequestMAC: the MAC of the request's unkeyed SHA-256, asked for only when
    ///   the row was upgraded from an unkeyed fingerprint (rows older than the upgrade).
    func claimIdempotencyKey(
        merchantID: String, key: String, requestMAC: [UInt8], legacyRequestMAC: @escaping @Sendable () throws -> [UInt8],
        holder: IdempotencyClaimHolder, now: Date
    ) async throws -> IdempotencyClaim
    /// Stores the sealed response of a request claimed by `owner`, with the secure card it concerns
    /// (if any), so purging that card destroys it.
    /// - Returns: false, writing nothing, when `owner` no longer holds the claim (it expired and
    ///   another server took it over).
    @discardableResult
    func completeIdempotentRequest(
        merchantID: String, key: String, owner: String, status: Int, sealedBody: [UInt8], keyVersion: Int, secureCardID: String?
    ) async throws -> Bool
    /// Releases a claim whose request failed on the server side, so the client may retry; only
    /// while `owner` holds it (nil: whoever holds it, for rows no request holds).
    func releaseIdempotencyKey(merchantID: String, key: String, owner: String?) async throws
    /// Forgets keys older than `date`; returns how many.
    func purgeIdempotencyKeys(olderThan date: Date) async throws -> Int
    /// Up to `limit` stored responses of a merchant sealed under a data key older than `keyVersion`.
    func idempotentResponsesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [SealedIdempotentResponse]
    /// Replaces sealed responses still at the version they were read with; returns how many changed.
    func resealIdempotentResponses(merchantID: String, _ rows: [(old: SealedIdempotentResponse, new: SealedIdempotentResponse)]) async throws -> Int
    /// Up to `limit` rows still holding an unkeyed fingerprint (and a clear response).
    func legacyIdempotencyRows(limit: Int) async throws -> [LegacyIdempotencyRow]
    /// Replaces a legacy row's fingerprint by `requestMAC` (a MAC of the old SHA-256) and its
    /// clear response by the sealed one.
    func upgradeLegacyIdempotencyRow(
        _ row: LegacyIdempotencyRow, requestMAC: [UInt8], sealedBody: [UInt8]?, keyVersion: Int?, secureCardID: String?
    ) async throws
}
