public import Foundation

/// Idempotency-Keys without anything a database thief could use.
///
/// A request is remembered only as a keyed BLAKE2b MAC (key: a `crypto_kdf` subkey of the
/// merchant's fingerprint key, context `idemmac1`, never stored), so candidate card numbers and
/// CVVs cannot be tested against it; its response only sealed under the merchant's data key, bound
/// to merchant, key and status. A response that concerns a secure card records the card's token so
/// that purging the card destroys it.
///
/// Cost per idempotent request: one MAC (and a cached subkey), one seal on completion, one open on
/// a replay.
public struct IdempotencyService: Sendable {
    static let responseKind = "idempotent_response"
    /// The `crypto_kdf` context of the request MAC key.
    public static let macContext = "idemmac1"

    private let store: any IdempotencyStore
    private let keyring: Keyring
    private let macKeys: DerivedKeyCache
    private let claimLease: TimeInterval

    /// How long a claim is held before it is taken as abandoned by default: well past the longest a
    /// live server spends on one request (the default request timeout, 30 s, with a gateway call
    /// bounded by the gateway timeout, 30 s).
    public static let defaultClaimLease: TimeInterval = 60

    /// A request's hold on its Idempotency-Key: complete or release through it.
    public struct Claim: Sendable, Equatable {
        /// The merchant.
        public var merchantID: String
        /// The Idempotency-Key.
        public var key: String
        /// This claim's owner token: completing or releasing writes only while it holds the key.
        public var owner: String
        /// The id a transaction created by the request must take, so a retry after this server
        /// died finds it.
        public var transactionID: String
    }

    /// What a request with an Idempotency-Key should do.
    public enum Outcome: Sendable {
        /// Run the request, then `complete` (or `release` on a server error).
        case started(Claim)
        /// The first request with this key was abandoned by a server that died: the claim is now
        /// this request's. What that request left (a transaction under `Claim.transactionID`, in
        /// doubt until the reconciler settles it from the gateway) must be answered instead of
        /// running it again; when it left nothing, the request runs as if `started`.
        case takenOver(Claim)
        /// Answer with the stored response (opened into locked memory: copy out and drop).
        case replay(status: Int, body: SecureBytes)
        /// The key was used with another request.
        case mismatch
        /// The first request with this key is still running.
        case inProgress
        /// The stored response was destroyed (its card was purged); the request is not run again.
        case responseDestroyed
    }

    /// A service over `store`, with keys from `keyring`.
    /// - Parameter claimLease: how long a claim stays with the server that made it; a request still
    ///   unfinished after it is taken as abandoned by a dead server and the next retry takes the
    ///   claim over. Must exceed the longest request a live server runs.
    public init(store: any IdempotencyStore, keyring: Keyring, claimLease: TimeInterval = IdempotencyService.defaultClaimLease) {
        self.store = store
        self.keyring = keyring
        self.claimLease = claimLease
        macKeys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.macContext)
    }

    /// Claims `key` for `request` (method, path, query and body as the middleware fingerprints them).
    /// - Parameter transactionID: the id a transaction created by this request will take, reserved
    ///   with the claim (a taken-over claim keeps the first request's).
    public func claim(merchantID: String, key: String, request: [UInt8], transactionID: String, now: Date = Date()) async throws -> Outcome {
        let macKey = try await macKeys.key(merchantID: merchantID)
        let mac = try KeyedHash.blake2b(request, key: macKey, length: 32)
        let legacy: @Sendable () throws -> [UInt8] = { try Self.legacyMAC(ofHash: Digest.sha256(request), key: macKey) }
        let holder = IdempotencyClaimHolder(
            owner: OpaqueToken.make(prefix: "claim_", randomBits: 128), expiresAt: now.addingTimeInterval(claimLease), transactionID: transactionID)
        let claim = { (transactionID: String) in Claim(merchantID: merchantID, key: key, owner: holder.owner, transactionID: transactionID) }
        switch try await store.claimIdempotencyKey(
            merchantID: merchantID, key: key, requestMAC: mac, legacyRequestMAC: legacy, holder: holder, now: now)
        {
        case .started: return .started(claim(transactionID))
        case .takenOver(let reserved): return .takenOver(claim(reserved))
        case .mismatch: return .mismatch
        case .inProgress: return .inProgress
        case .purged: return .responseDestroyed
        case .replay(let status, let sealed):
            let body = try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.responseKind, recordID: key, binding: Self.binding(status))
            return .replay(status: status, body: body)
        }
    }

    /// Seals and stores the response of a claimed request (nothing, when the claim was taken over
    /// meanwhile: the request that took it answers for the key).
    public func complete(_ claim: Claim, status: Int, body: [UInt8]) async throws {
        let sealed = try await keyring.sealRecord(
            body, merchantID: claim.merchantID, kind: Self.responseKind, recordID: claim.key, binding: Self.binding(status))
        try await store.completeIdempotentRequest(
            merchantID: claim.merchantID, key: claim.key, owner: claim.owner, status: status, sealedBody: sealed,
            keyVersion: Keyring.keyVersion(ofSealedRecord: sealed) ?? 1, secureCardID: Self.secureCardReference(in: body))
    }

    /// Releases a claim after a server error, so the client may retry (only while it is still this claim's).
    public func release(_ claim: Claim) async throws {
        try await store.releaseIdempotencyKey(merchantID: claim.merchantID, key: claim.key, owner: claim.owner)
    }

    /// Re-encrypts a merchant's stored responses under its newest data key (`keys rotate --data`),
    /// so a superseded data key is not needed to replay them; safe while serving.
    /// - Returns: how many were resealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        var total = 0
        while true {
            let batch = try await store.idempotentResponsesToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var pairs: [(old: SealedIdempotentResponse, new: SealedIdempotentResponse)] = []
            for old in batch {
                let binding = Self.binding(old.status)
                let plain = try await keyring.openRecord(old.sealedBody, merchantID: merchantID, kind: Self.responseKind, recordID: old.key, binding: binding)
                let sealed = try await keyring.sealRecord(plain, merchantID: merchantID, kind: Self.responseKind, recordID: old.key, binding: binding)
                var new = old
                new.sealedBody = sealed
                new.keyVersion = Keyring.keyVersion(ofSealedRecord: sealed) ?? newest
                pairs.append((old, new))
            }
            let changed = try await store.resealIdempotentResponses(merchantID: merchantID, pairs)
            total += changed
            if changed == 0 { return total }
        }
    }

    /// Upgrades rows written before request fingerprints were keyed: the unkeyed SHA-256 becomes a
    /// MAC of itself, the clear response is sealed. Rows of a merchant whose keys are destroyed
    /// are deleted (it can send no request any more). Run at start-up, before serving.
    /// - Returns: how many rows were upgraded or deleted.
    public func upgradeLegacyRows(batchSize: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let rows = try await store.legacyIdempotencyRows(limit: batchSize)
            if rows.isEmpty { return total }
            for row in rows {
                do {
                    let mac = try Self.legacyMAC(ofHash: row.requestHash, key: try await macKeys.key(merchantID: row.merchantID))
                    var sealed: [UInt8]?
                    var card: String?
                    if let body = row.body, let status = row.status {
                        sealed = try await keyring.sealRecord(
                            body, merchantID: row.merchantID, kind: Self.responseKind, recordID: row.key, binding: Self.binding(status))
                        card = Self.secureCardReference(in: body)
                    }
                    try await store.upgradeLegacyIdempotencyRow(
                        row, requestMAC: mac, sealedBody: sealed, keyVersion: sealed.flatMap(Keyring.keyVersion(ofSealedRecord:)), secureCardID: card)
                } catch KeyringError.keyUnavailable {
                    try await store.releaseIdempotencyKey(merchantID: row.merchantID, key: row.key, owner: nil)
                }
            }
            total += rows.count
        }
    }

    /// The MAC an upgraded legacy row keeps: of the old unkeyed SHA-256, under its own prefix (a
    /// request fingerprint starts with the method, so the two inputs never coincide).
    static func legacyMAC(ofHash hash: [UInt8], key: SecureBytes) throws -> [UInt8] {
        try KeyedHash.blake2b(Array("legacy-sha256\n".utf8) + hash, key: key, length: 32)
    }

    /// The stored status is bound to the sealed body: an edited status code fails to open.
    static func binding(_ status: Int) -> [UInt8] { Array("status=\(status)".utf8) }

    /// The first non-null `"secureCardReference": "sc_..."` member of a JSON response, found
    /// without parsing the whole body (responses are our own handlers' JSON; card tokens are
    /// base32, never escaped).
    public static func secureCardReference(in body: [UInt8]) -> String? {
        let name = Array("\"secureCardReference\"".utf8)
        guard body.count > name.count else { return nil }
        var index = 0
        while index + name.count <= body.count {
            guard body[index] == name[0], body[index..<index + name.count].elementsEqual(name) else {
                index += 1
                continue
            }
            var cursor = index + name.count
            func skipSpace() { while cursor < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[cursor]) { cursor += 1 } }
            skipSpace()
            if cursor < body.count, body[cursor] == UInt8(ascii: ":") {
                cursor += 1
                skipSpace()
                if cursor < body.count, body[cursor] == UInt8(ascii: "\"") {
                    let start = cursor + 1
                    var end = start
                    while end < body.count, body[end] != UInt8(ascii: "\""), body[end] != UInt8(ascii: "\\") { end += 1 }
                    let value = String(decoding: body[start..<end], as: UTF8.self)
                    if end < body.count, body[end] == UInt8(ascii: "\""), value.hasPrefix("sc_") { return value }
                }
            }
            index += name.count
        }
        return nil
    }
}
