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

    /// What a request with an Idempotency-Key should do.
    public enum Outcome: Sendable {
        /// Run the request, then `complete` (or `release` on a server error).
        case started
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
    public init(store: any IdempotencyStore, keyring: Keyring) {
        self.store = store
        self.keyring = keyring
        macKeys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.macContext)
    }

    /// Claims `key` for `request` (method, path, query and body as the middleware fingerprints them).
    public func claim(merchantID: String, key: String, request: [UInt8], now: Date = Date()) async throws -> Outcome {
        let macKey = try await macKeys.key(merchantID: merchantID)
        let mac = try KeyedHash.blake2b(request, key: macKey, length: 32)
        let legacy: @Sendable () throws -> [UInt8] = { try Self.legacyMAC(ofHash: Digest.sha256(request), key: macKey) }
        switch try await store.claimIdempotencyKey(merchantID: merchantID, key: key, requestMAC: mac, legacyRequestMAC: legacy, now: now) {
        case .started: return .started
        case .mismatch: return .mismatch
        case .inProgress: return .inProgress
        case .purged: return .responseDestroyed
        case .replay(let status, let sealed):
            let body = try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.responseKind, recordID: key, binding: Self.binding(status))
            return .replay(status: status, body: body)
        }
    }

    /// Seals and stores the response of a claimed request.
    public func complete(merchantID: String, key: String, status: Int, body: [UInt8]) async throws {
        let sealed = try await keyring.sealRecord(body, merchantID: merchantID, kind: Self.responseKind, recordID: key, binding: Self.binding(status))
        try await store.completeIdempotentRequest(
            merchantID: merchantID, key: key, status: status, sealedBody: sealed, keyVersion: Keyring.keyVersion(ofSealedRecord: sealed) ?? 1,
            secureCardID: Self.secureCardReference(in: body))
    }

    /// Releases a claim after a server error, so the client may retry.
    public func release(merchantID: String, key: String) async throws {
        try await store.releaseIdempotencyKey(merchantID: merchantID, key: key)
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
                    try await store.releaseIdempotencyKey(merchantID: row.merchantID, key: row.key)
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
