public import Foundation
import Synchronization

/// Why the key hierarchy cannot be used.
public enum KeyringError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The KEK offered for a version does not open that version's check value.
    case wrongMasterKey(version: Int)
    /// The database has live keys under a KEK version the key source does not hold.
    case missingMasterKeyVersion(Int)
    /// The merchant has no key of that purpose (never created, or destroyed at off-boarding).
    case keyUnavailable(merchantID: String, purpose: KeyPurpose)

    public var description: String {
        switch self {
        case .wrongMasterKey(let version):
            "the master key for version \(version) is wrong: it does not open the database's key check value"
        case .missingMasterKeyVersion(let version):
            "the database uses master key version \(version), which the configured key source does not contain"
        case .keyUnavailable(let merchant, let purpose):
            "merchant \(merchant) has no usable \(purpose.rawValue) key"
        }
    }
}

/// The key hierarchy: a master key-encryption key (KEK, possibly several versions)
/// wraps per-merchant data, fingerprint and webhook keys; unwrapped keys stay in locked memory
/// in a cache for the life of the process.
public final class Keyring: Sendable {
    private static let checkPlaintext = Array("vault kek check".utf8)

    /// How long an unwrapped key is used before the store is asked again whether it still exists
    /// (a key destroyed by off-boarding in another process stops working within this time).
    public static let keyRecheckInterval: Duration = .seconds(60)
    /// How long "the newest version" of a merchant's key is remembered when the store keeps no key
    /// generation (a data key rotated by another process is used for new records within this time).
    public static let newestVersionInterval: Duration = .seconds(5)
    /// How often the store's key generation (``KeyGenerationStore``) is read: a key change made by
    /// another process (rotation, destruction, off-boarding) is seen by this one within this time
    /// plus one small read, and until it moves cached keys and newest versions are used as they are.
    public static let generationCheckInterval: Duration = .seconds(2)

    private let store: any KeyStore
    private let generations: (any KeyGenerationStore)?
    /// Internal, not private: the operators' TOTP secrets are sealed under a subkey of the KEK (`Keyring+Operators.swift`).
    let masterKeys: MasterKeyHolder
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let cache = Mutex<[CacheKey: CachedKey]>([:])
    private let newest = Mutex<[PurposeKey: NewestVersion]>([:])
    private let generation = Mutex(GenerationState())
    private let limitKey = Mutex<(version: Int, key: SecureBytes)?>(nil)
    /// The API key credentials this process verified recently (``APIKeyCredentialCache``), kept
    /// under the key generation: one per process, whichever service reads or changes keys.
    let apiKeyCredentials = APIKeyCredentialCache()

    private struct NewestVersion {
        var version: Int
        var at: ContinuousClock.Instant
        var generation: Int64
    }

    /// The last key generation read from the store, and when it was read.
    private struct GenerationState {
        var value: Int64 = 0
        var checkedAt: ContinuousClock.Instant?
    }

    private struct CacheKey: Hashable {
        var merchantID: String
        var purpose: KeyPurpose
        var version: Int
    }

    private struct PurposeKey: Hashable {
        var merchantID: String
        var purpose: KeyPurpose
    }

    private struct CachedKey {
        var key: SecureBytes
        var at: ContinuousClock.Instant
        var generation: Int64
    }

    /// A keyring over `masterKeys`, with wrapped keys kept in `store` (whose key generation it
    /// follows when the store is also a ``KeyGenerationStore``).
    /// - Parameter clock: the time (tests move it by hand).
    public init(masterKeys: MasterKeyRing, store: any KeyStore, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.store = store
        self.generations = store as? any KeyGenerationStore
        self.masterKeys = MasterKeyHolder(masterKeys)
        self.clock = clock
        store.attachSystemKeyCustodian(self.masterKeys)
    }

    /// How long after ``announceKeyChange()`` every process on the database uses what changed for
    /// new records (plus one small read): what `keys rotate --data` waits before re-encrypting.
    public var keyChangePropagationBound: Duration {
        generations == nil ? Self.newestVersionInterval : Self.generationCheckInterval
    }

    /// The KEK version new keys are wrapped under.
    public var currentMasterKeyVersion: Int { masterKeys.ring.withLock { $0.currentVersion } }

    /// Checks the KEK against the database before anything is served: every known version the
    /// source holds must open its check value, and every version still wrapping keys must be
    /// held. Registers the current version on first use, and makes sure the audit chain has its key.
    /// - Parameter upgradingUnkeyedAuditChain: key an audit chain written unkeyed by an older build
    ///   (the operator's `vault audit upgrade`); otherwise events without a key are refused.
    /// - Throws: `KeyringError.wrongMasterKey`, `.missingMasterKeyVersion`; `AuditChainError`.
    ///
    /// When the database names a KEK version the ring does not hold (another process rotated the
    /// master key), the key source is read again once before the check fails: a running server's
    /// readiness probe recovers by itself after `vault keys rotate`, with no request or SIGHUP needed.
    public func verifyMasterKey(now: Date = Date(), upgradingUnkeyedAuditChain: Bool = false) async throws {
        do {
            try await checkMasterKey(now: now, upgradingUnkeyedAuditChain: upgradingUnkeyedAuditChain)
        } catch KeyringError.missingMasterKeyVersion where (try? masterKeys.reload()) != nil {
            try await checkMasterKey(now: now, upgradingUnkeyedAuditChain: upgradingUnkeyedAuditChain)
        }
    }

    private func checkMasterKey(now: Date, upgradingUnkeyedAuditChain: Bool) async throws {
        let ring = masterKeys.ring.withLock { $0 }
        let known = try await store.kekVersions()
        try Self.check(ring, opens: known)
        try await store.checkAuditKey(upgradingUnkeyedChain: upgradingUnkeyedAuditChain)
        if !known.contains(where: { $0.version == ring.currentVersion }) {
            try await store.registerKEKVersion(try checkRecord(ring: ring, version: ring.currentVersion, now: now))
        }
        try await store.ensureAuditKey()
    }

    /// Fresh random data, fingerprint and webhook keys for a new merchant, wrapped under the current KEK.
    /// The unwrapped keys are cached, so records can be sealed for the merchant before the keys are stored.
    public func newMerchantKeys(merchantID: String, now: Date = Date()) throws -> [WrappedKey] {
        let (at, current) = (clock(), generation.withLock { $0.value })
        return try KeyPurpose.allCases.map { purpose in
            let key = try SecureBytes.random(count: RecordCipher.keyLength)
            cache.withLock { $0[CacheKey(merchantID: merchantID, purpose: purpose, version: 1)] = CachedKey(key: key, at: at, generation: current) }
            return try wrap(key, merchantID: merchantID, purpose: purpose, version: 1, now: now)
        }
    }

    /// A new version of a merchant's data key, wrapped under the current KEK (record re-encryption
    /// moves records onto it).
    public func newDataKeyVersion(merchantID: String, version: Int, now: Date = Date()) throws -> WrappedKey {
        try newKeyVersion(merchantID: merchantID, purpose: .data, version: version, now: now)
    }

    /// A new version of a merchant's key of `purpose`, fresh and random, wrapped under the current KEK.
    public func newKeyVersion(merchantID: String, purpose: KeyPurpose, version: Int, now: Date = Date()) throws -> WrappedKey {
        let key = try SecureBytes.random(count: RecordCipher.keyLength)
        return try wrap(key, merchantID: merchantID, purpose: purpose, version: version, now: now)
    }

    /// The keys that sign a merchant's webhook delivery at `now`, newest first: the newest webhook
    /// key and, while a rotation's overlap lasts, the ones before it (``WebhookKeyStore``). An
    /// older key signs only while its window, checked against its binding, lasts
    /// (``WebhookSigningWindowBinding``): one raised in the database signs nothing.
    /// - Throws: `KeyringError.keyUnavailable` when the merchant has no webhook key.
    public func webhookSigningKeys(merchantID: String, now: Date = Date()) async throws -> [SecureBytes] {
        guard let windows = try await (store as? any WebhookKeyStore)?.webhookSigningWindows(merchantID: merchantID),
            case let versions = await WebhookSigningWindowBinding(keyring: self).signingVersions(windows, now: now), !versions.isEmpty
        else { return [try await key(merchantID: merchantID, purpose: .webhook).key] }
        var keys: [SecureBytes] = []
        for version in versions { keys.append(try await key(merchantID: merchantID, purpose: .webhook, version: version).key) }
        return keys
    }

    /// The unwrapped key of a merchant (newest version when `version` is nil), from the cache or the store.
    /// - Throws: `KeyringError.keyUnavailable` when destroyed or absent; crypto errors when the wrapping is damaged.
    public func key(merchantID: String, purpose: KeyPurpose, version: Int? = nil) async throws -> (key: SecureBytes, version: Int) {
        let current = await currentGeneration()
        let now = clock()
        let purposeKey = PurposeKey(merchantID: merchantID, purpose: purpose)
        let newestLifetime = generations == nil ? Self.newestVersionInterval : Self.keyRecheckInterval
        let wanted = version ?? newest.withLock { newest in
            newest[purposeKey].flatMap { $0.generation == current && now - $0.at < newestLifetime ? $0.version : nil }
        }
        if let wanted, let cached = cache.withLock({ $0[CacheKey(merchantID: merchantID, purpose: purpose, version: wanted)] }),
            cached.generation == current, now - cached.at < Self.keyRecheckInterval
        {
            return (cached.key, wanted)
        }
        guard let wrappedKey = try await store.wrappedKey(merchantID: merchantID, purpose: purpose, version: wanted),
            let wrapped = wrappedKey.wrapped
        else {
            cache.withLock { cache in cache = cache.filter { $0.key.merchantID != merchantID } }
            throw KeyringError.keyUnavailable(merchantID: merchantID, purpose: purpose)
        }
        newest.withLock { newest in
            if version == nil {
                newest[purposeKey] = NewestVersion(version: wrappedKey.version, at: now, generation: current)
            } else if let known = newest[purposeKey], known.version < wrappedKey.version {
                // A record sealed under a version newer than the one this process seals with: another
                // process rotated; look the newest up again at the next seal.
                newest[purposeKey] = nil
            }
        }
        let cacheKey = CacheKey(merchantID: merchantID, purpose: purpose, version: wrappedKey.version)
        if let cached = cache.withLock({ $0[cacheKey] }) {
            cache.withLock { $0[cacheKey]?.at = now; $0[cacheKey]?.generation = current }
            return (cached.key, wrappedKey.version)
        }
        let key: SecureBytes
        do {
            key = try unwrap(wrapped, kekVersion: wrappedKey.kekVersion, merchantID: merchantID, purpose: purpose, version: wrappedKey.version)
        } catch KeyringError.missingMasterKeyVersion {
            // Read before a rotation rewrapped it, and the reloaded source no longer holds the old
            // version: the row now names the new one.
            guard let again = try await store.wrappedKey(merchantID: merchantID, purpose: purpose, version: wrappedKey.version),
                let rewrapped = again.wrapped
            else {
                throw KeyringError.keyUnavailable(merchantID: merchantID, purpose: purpose)
            }
            key = try unwrap(rewrapped, kekVersion: again.kekVersion, merchantID: merchantID, purpose: purpose, version: again.version)
        }
        cache.withLock { $0[cacheKey] = CachedKey(key: key, at: now, generation: current) }
        return (key, wrappedKey.version)
    }

    /// Makes this process use `version` as the newest at once (after storing a rotated key).
    public func noteNewestVersion(merchantID: String, purpose: KeyPurpose, version: Int) {
        let (at, current) = (clock(), generation.withLock { $0.value })
        newest.withLock { $0[PurposeKey(merchantID: merchantID, purpose: purpose)] = NewestVersion(version: version, at: at, generation: current) }
    }

    /// Tells every process on the database that keys changed (advances the store's key generation;
    /// nothing when the store keeps none): they stop trusting their cached keys and newest versions
    /// within ``keyChangePropagationBound``. This process follows at once.
    /// - Throws: store errors.
    public func announceKeyChange() async throws {
        guard let generations else { return }
        let value = try await generations.advanceKeyGeneration()
        let now = clock()
        generation.withLock { state in
            state.value = max(state.value, value)
            state.checkedAt = now
        }
    }

    /// The key generation API key credentials are kept under, read from the store as for keys
    /// (at most every ``generationCheckInterval``); nil when the store keeps no generation, and
    /// then nothing is kept.
    func apiKeyGeneration() async -> Int64? {
        guard generations != nil else { return nil }
        return await currentGeneration()
    }

    /// After this process changed a key's row or a merchant's row (its database advanced the
    /// generation by trigger): forgets the kept credentials and reads the generation again at the
    /// next use, so a credential read before the change and kept after this is not used either.
    func apiKeyCredentialsChanged() {
        apiKeyCredentials.removeAll()
        generation.withLock { $0.checkedAt = nil }
    }

    /// The key generation this process works under: read from the store when the last read is
    /// older than ``generationCheckInterval`` (one caller reads; the others meanwhile go on with
    /// the value they have). When it moved, the key source is read again too (a `keys rotate` on
    /// this machine added a KEK version), so every server's current KEK follows the rotation.
    private func currentGeneration() async -> Int64 {
        guard let generations else { return 0 }
        let now = clock()
        let (due, known) = generation.withLock { state -> (Bool, Int64) in
            if let at = state.checkedAt, now - at < Self.generationCheckInterval { return (false, state.value) }
            state.checkedAt = now
            return (true, state.value)
        }
        guard due else { return known }
        guard let read = try? await generations.keyGeneration() else {
            // The store did not answer: try again at the next use, keep what is known meanwhile.
            generation.withLock { $0.checkedAt = nil }
            return known
        }
        let value = generation.withLock { state -> Int64 in
            state.value = max(state.value, read)
            return state.value
        }
        if value != known { _ = try? masterKeys.reload() }
        return value
    }

    /// The key of the MACs that name request-limit subjects (API key ids, client addresses) in a
    /// shared database: derived (`crypto_kdf`, context `reqlimit`) from the current KEK, so servers
    /// holding the same KEK name a subject alike, and a copy of the table cannot be tested against
    /// candidate addresses. It follows the KEK when a rotation moves the current version.
    /// - Throws: crypto errors.
    public func requestLimitKey() throws -> SecureBytes {
        let (version, kek) = masterKeys.ring.withLock { ($0.currentVersion, $0.current) }
        if let cached = limitKey.withLock({ $0 }), cached.version == version { return cached.key }
        let key = try SubkeyDerivation.derive(from: kek, id: 1, context: "reqlimit")
        limitKey.withLock { $0 = (version, key) }
        return key
    }

    /// Forgets every cached key of a merchant (after off-boarding or data-key rotation), and every
    /// kept API key credential.
    public func evict(merchantID: String) {
        apiKeyCredentials.removeAll()
        cache.withLock { cache in cache = cache.filter { $0.key.merchantID != merchantID } }
        newest.withLock { newest in newest = newest.filter { $0.key.merchantID != merchantID } }
    }

    /// How to read the key source again when a key is wrapped under a KEK version not held (another
    /// process rotated the master key) and on `reloadMasterKeys` (SIGHUP). Nil: never reload.
    public func setMasterKeyReloader(_ load: (@Sendable () throws -> MasterKeyRing)?) {
        masterKeys.setReloader(load)
    }

    /// Reads the key source again now (SIGHUP).
    /// - Returns: the KEK versions now held; nil when the source cannot be reloaded.
    /// - Throws: what loading the source throws; the keys in memory are then unchanged.
    public func reloadMasterKeys() throws -> [Int]? {
        try masterKeys.reload()
    }

    /// Rewraps every key still under an older KEK with the current one, in batches, re-seals the
    /// operators' TOTP secrets sealed under an older KEK (``resealOperatorSecrets(in:)``), then
    /// retires the older versions. Safe to interrupt and run again.
    /// - Returns: how many keys were rewrapped.
    public func rewrapAll(batchSize: Int = 500, actor: String, now: Date = Date()) async throws -> Int {
        let current = currentMasterKeyVersion
        try await verifyMasterKey(now: now)
        var total = 0
        while true {
            let batch = try await store.wrappedKeys(kekVersionBelow: current, limit: batchSize)
            if batch.isEmpty { break }
            var pairs: [(old: WrappedKey, new: WrappedKey)] = []
            for old in batch {
                guard let wrapped = old.wrapped else { continue }
                let key = try unwrap(wrapped, kekVersion: old.kekVersion, merchantID: old.merchantID, purpose: old.purpose, version: old.version)
                pairs.append((old, try wrap(key, merchantID: old.merchantID, purpose: old.purpose, version: old.version, now: old.createdAt)))
            }
            total += try await store.rewrap(pairs)
        }
        _ = try await store.rewrapSystemKeys(kekVersionBelow: current, with: masterKeys)
        var operators = 0
        if let operatorStore = store as? any OperatorStore { operators = try await resealOperatorSecrets(in: operatorStore) }
        try await store.retireKEKVersions(
            below: current, at: now,
            audit: AuditEntry(merchantID: nil, actor: actor, action: "keys.kek_rotated", objectType: "kek", objectID: String(current),
                              details: ["rewrapped": String(total), "operatorSecrets": String(operators)]))
        try await announceKeyChange()
        return total
    }

    private func wrap(_ key: SecureBytes, merchantID: String, purpose: KeyPurpose, version: Int, now: Date) throws -> WrappedKey {
        let (kekVersion, kek) = masterKeys.ring.withLock { ($0.currentVersion, $0.current) }
        let wrapped = try RecordCipher.seal(key, key: kek, associatedData: Self.wrapAD(merchantID, purpose, version, kekVersion))
        return WrappedKey(merchantID: merchantID, purpose: purpose, version: version, kekVersion: kekVersion, wrapped: wrapped, createdAt: now)
    }

    /// A wrapped key just made by ``newMerchantKeys(merchantID:now:)``, unwrapped: for what must be
    /// derived from a new merchant's keys before they are stored.
    /// - Throws: `KeyringError.keyUnavailable` for a destroyed key; crypto errors.
    public func unwrap(_ key: WrappedKey) throws -> SecureBytes {
        guard let wrapped = key.wrapped else { throw KeyringError.keyUnavailable(merchantID: key.merchantID, purpose: key.purpose) }
        return try unwrap(wrapped, kekVersion: key.kekVersion, merchantID: key.merchantID, purpose: key.purpose, version: key.version)
    }

    private func unwrap(_ wrapped: [UInt8], kekVersion: Int, merchantID: String, purpose: KeyPurpose, version: Int) throws -> SecureBytes {
        guard let kek = masterKeys.key(version: kekVersion) else {
            throw KeyringError.missingMasterKeyVersion(kekVersion)
        }
        return try RecordCipher.open(wrapped, key: kek, associatedData: Self.wrapAD(merchantID, purpose, version, kekVersion))
    }

    private func checkRecord(ring: MasterKeyRing, version: Int, now: Date) throws -> KEKVersionRecord {
        guard let key = ring.key(version: version) else { throw KeyringError.missingMasterKeyVersion(version) }
        let check = try RecordCipher.seal(Self.checkPlaintext, key: key, associatedData: Self.checkAD(version))
        return KEKVersionRecord(version: version, checkValue: check, createdAt: now)
    }

    /// Checks `ring` against a database's master key versions: every version the ring holds must
    /// open its check value, and every version not retired (still wrapping keys) must be held.
    /// The rule start-up applies, and the one a restore applies to a backup before writing anything.
    /// - Throws: `KeyringError.wrongMasterKey`, `.missingMasterKeyVersion`.
    public static func check(_ ring: MasterKeyRing, opens known: [KEKVersionRecord]) throws {
        for record in known {
            guard let key = ring.key(version: record.version) else {
                if record.retiredAt == nil { throw KeyringError.missingMasterKeyVersion(record.version) }
                continue
            }
            do {
                _ = try RecordCipher.open(record.checkValue, key: key, associatedData: Self.checkAD(record.version))
            } catch {
                throw KeyringError.wrongMasterKey(version: record.version)
            }
        }
    }

    private static func checkAD(_ version: Int) -> [UInt8] { Array("vault/kek-check/v\(version)".utf8) }

    private static func wrapAD(_ merchantID: String, _ purpose: KeyPurpose, _ version: Int, _ kekVersion: Int) -> [UInt8] {
        Array("vault/merchant-key/\(merchantID)/\(purpose.rawValue)/v\(version)/kek\(kekVersion)".utf8)
    }
}

/// The KEK versions in memory, shared with the store for its system keys (the audit key), so
/// the store holds no reference back to the keyring.
final class MasterKeyHolder: SystemKeyCustodian {
    let ring: Mutex<MasterKeyRing>
    /// Reads the key source again (set for sources that can change while the process runs).
    private let reloader = Mutex<(@Sendable () throws -> MasterKeyRing)?>(nil)
    /// Serializes reloads, so a burst of requests meeting a new version reads the source once.
    private let reloading = Mutex(0)

    init(_ ring: MasterKeyRing) {
        self.ring = Mutex(ring)
    }

    func setReloader(_ load: (@Sendable () throws -> MasterKeyRing)?) {
        reloader.withLock { $0 = load }
    }

    /// Reads the key source again and replaces the ring with what it holds now.
    /// - Returns: the versions now held; nil when the source cannot be reloaded.
    /// - Throws: what loading the source throws (the ring is then unchanged).
    func reload() throws -> [Int]? {
        guard let load = reloader.withLock({ $0 }) else { return nil }
        return try reloading.withLock { count in
            let loaded = try load()
            ring.withLock { $0 = loaded }
            count += 1
            return loaded.versions
        }
    }

    /// The KEK of `version`, reloading the source once if it is not held (a rotation by another process).
    func key(version: Int) -> SecureBytes? {
        if let key = ring.withLock({ $0.key(version: version) }) { return key }
        guard let load = reloader.withLock({ $0 }) else { return nil }
        return reloading.withLock { count -> SecureBytes? in
            // Another caller may have reloaded while this one waited.
            if let key = ring.withLock({ $0.key(version: version) }) { return key }
            guard let loaded = try? load() else { return nil }
            ring.withLock { $0 = loaded }
            count += 1
            return loaded.key(version: version)
        }
    }

    func unwrapSystemKey(_ wrapped: [UInt8], purpose: String, kekVersion: Int) throws -> SecureBytes {
        guard let kek = key(version: kekVersion) else {
            throw KeyringError.missingMasterKeyVersion(kekVersion)
        }
        return try RecordCipher.open(wrapped, key: kek, associatedData: Self.systemWrapAD(purpose, kekVersion))
    }

    func wrapSystemKey(_ key: SecureBytes, purpose: String) throws -> (kekVersion: Int, wrapped: [UInt8]) {
        let (kekVersion, kek) = ring.withLock { ($0.currentVersion, $0.current) }
        return (kekVersion, try RecordCipher.seal(key, key: kek, associatedData: Self.systemWrapAD(purpose, kekVersion)))
    }

    private static func systemWrapAD(_ purpose: String, _ kekVersion: Int) -> [UInt8] {
        Array("vault/system-key/\(purpose)/kek\(kekVersion)".utf8)
    }
}
