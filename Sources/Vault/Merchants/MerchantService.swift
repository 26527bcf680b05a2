public import Foundation

/// Settings given when creating or changing a merchant; nil leaves a setting as it is.
public struct MerchantSettings: Sendable, Equatable {
    /// Adapter name.
    public var gateway: String?
    /// Adapter endpoint override.
    public var gatewayURL: String?
    /// Adapter credentials (Authorize.Net `name`, `transactionKey`; NMI `security_key`), sealed at rest.
    public var gatewayCredentials: [String: String]?
    /// IANA time zone.
    public var timeZone: String?
    /// Webhook endpoint.
    public var callbackURL: String?
    /// Default for `verify` on registration.
    public var verifyOnRegistration: Bool?
    /// Whether credits (refunds without an earlier sale) are allowed.
    public var allowCredit: Bool?
    /// The gateway account's currency (ISO 4217 code), in which cards are verified.
    public var currency: String?

    /// Creates settings.
    public init(
        gateway: String? = nil, gatewayURL: String? = nil, gatewayCredentials: [String: String]? = nil, timeZone: String? = nil,
        callbackURL: String? = nil, verifyOnRegistration: Bool? = nil, allowCredit: Bool? = nil, currency: String? = nil
    ) {
        self.allowCredit = allowCredit
        self.currency = currency
        self.gateway = gateway
        self.gatewayURL = gatewayURL
        self.gatewayCredentials = gatewayCredentials
        self.timeZone = timeZone
        self.callbackURL = callbackURL
        self.verifyOnRegistration = verifyOnRegistration
    }
}

/// A merchant setting that breaks a rule.
public struct MerchantSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The setting, as the command line names it (`gateway`, `time-zone`, ...).
    public var setting: String
    /// What is wrong.
    public var message: String

    public var description: String { "\(setting): \(message)" }
}

/// Creating, changing and off-boarding merchants, and issuing their API keys.
public struct MerchantService: Sendable {
    private static let credentialsKind = "gateway_credentials"

    private let store: any MerchantStore & KeyStore & AuditStore
    private let keyring: Keyring
    private let defaultTimeZone: String
    private let defaultGateway: String
    private let allowPrivateCallbackTargets: Bool
    private let gateways: MerchantGatewayRules
    private let apiKeys: APIKeyBinding
    private let keyUses = APIKeyUseThrottle()

    /// A service over `store`, sealing with `keyring`.
    /// - Parameters:
    ///   - gateways: the gateways a merchant may name and their credential names (from the
    ///     gateway catalogue).
    ///   - allowPrivateCallbackTargets: whether callback URLs may name loopback, private or
    ///     link-local addresses (`webhooks.allowPrivateTargets`; off by default).
    public init(store: any MerchantStore & KeyStore & AuditStore, keyring: Keyring, defaultTimeZone: String, defaultGateway: String,
                gateways: MerchantGatewayRules, allowPrivateCallbackTargets: Bool = false) {
        self.store = store
        self.gateways = gateways
        self.keyring = keyring
        self.defaultTimeZone = defaultTimeZone
        self.defaultGateway = defaultGateway
        self.allowPrivateCallbackTargets = allowPrivateCallbackTargets
        apiKeys = APIKeyBinding(keyring: keyring)
    }

    /// Creates a merchant with fresh keys and its first API key.
    /// - Throws: `MerchantError.invalidName`, `.nameTaken`, `MerchantSettingError`.
    public func create(name: String, role: APIKeyRole, settings: MerchantSettings, actor: String, now: Date = Date()) async throws
        -> (merchant: Merchant, apiKey: IssuedAPIKey)
    {
        guard MerchantName.isValid(name) else { throw MerchantError.invalidName(name) }
        if try await store.merchant(named: name) != nil { throw MerchantError.nameTaken(name) }
        var merchant = Merchant(
            id: OpaqueToken.make(prefix: "mer_", randomBits: 80), sequence: 0, name: name,
            status: .active, gateway: GatewaySettings(name: defaultGateway), timeZone: defaultTimeZone, callbackURL: nil,
            verifyOnRegistration: true, createdAt: now, updatedAt: now)
        try apply(settings, to: &merchant)
        try requireCredentials(settings.gatewayCredentials ?? [:], of: merchant)
        let keys = try keyring.newMerchantKeys(merchantID: merchant.id, now: now)
        let sealed = try await sealCredentials(settings.gatewayCredentials, merchantID: merchant.id, dataKeyVersion: 1)
        let fingerprint = try keys.first { $0.purpose == .fingerprint }.map(keyring.unwrap)
        let apiKey = try await apiKeys.issue(merchantID: merchant.id, role: role, now: now, fingerprintKey: fingerprint)
        merchant.sequence = try await store.createMerchant(
            merchant, keys: keys, sealedGatewayCredentials: sealed, apiKey: apiKey,
            audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "merchant.created", objectType: "merchant", objectID: merchant.id,
                              details: [
                    "name": name, "gateway": merchant.gateway.name, "apiKey": apiKey.record.id, "role": role.rawValue,
                    Self.keysBoundDetail: "true", Self.schedulesBoundDetail: "true", Self.transactionsBoundDetail: "true",
                    Self.receiptsBoundDetail: "true",
                    Self.webhookWindowsBoundDetail: "true",
                ]))
        return (merchant, apiKey)
    }

    /// Changes a merchant's settings.
    public func update(name: String, settings: MerchantSettings, actor: String, now: Date = Date()) async throws -> Merchant {
        var merchant = try await existing(name)
        try apply(settings, to: &merchant)
        if settings.gateway != nil || settings.gatewayCredentials != nil {
            // The credentials the merchant will have: the new ones, else those kept (of the gateway it had).
            var credentials = settings.gatewayCredentials ?? [:]
            if settings.gatewayCredentials == nil { credentials = try await gatewayCredentials(merchantID: merchant.id) }
            try requireCredentials(credentials, of: merchant)
        }
        merchant.updatedAt = now
        let sealed = try await sealCredentials(settings.gatewayCredentials, merchantID: merchant.id, dataKeyVersion: nil)
        var changed = settings.changedNames
        if sealed != nil { changed.append("gatewayCredentials") }
        defer { keyring.apiKeyCredentialsChanged() }
        try await store.updateMerchant(
            merchant, sealedGatewayCredentials: sealed,
            audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "merchant.updated", objectType: "merchant", objectID: merchant.id,
                              details: ["changed": changed.joined(separator: ",")]))
        return merchant
    }

    /// Issues another API key for a merchant, with an optional label and expiry.
    /// - Throws: `MerchantError.notFound`; `MerchantSettingError` for a label that breaks
    ///   ``APIKeyLabel`` or an expiry not in the future.
    public func issueKey(
        merchantName: String, role: APIKeyRole, label: String? = nil, expiresAt: Date? = nil, actor: String, now: Date = Date()
    ) async throws -> IssuedAPIKey {
        let merchant = try await existing(merchantName)
        if let label { try APIKeyLabel.check(label) }
        if let expiresAt, expiresAt <= now {
            throw MerchantSettingError(setting: "expires", message: "the expiry \(Timestamp.string(expiresAt)) is not in the future")
        }
        let key = try await apiKeys.issue(merchantID: merchant.id, role: role, now: now, label: label, expiresAt: expiresAt)
        var details = ["role": role.rawValue]
        if let label { details["label"] = label }
        if let expiresAt { details["expiresAt"] = Timestamp.string(expiresAt) }
        try await store.addAPIKey(
            key, audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "api_key.created", objectType: "api_key", objectID: key.record.id,
                                   details: details))
        return key
    }

    /// Revokes one of a merchant's keys (and binds the revocation into its row).
    public func revokeKey(merchantName: String, keyID: String, actor: String, now: Date = Date()) async throws {
        let merchant = try await existing(merchantName)
        guard let stored = try await store.apiKeyCredential(id: keyID)?.key, stored.record.merchantID == merchant.id else {
            throw MerchantError.apiKeyNotFound(keyID)
        }
        if let revokedAt = stored.record.revokedAt { throw MerchantError.apiKeyAlreadyRevoked(keyID, at: revokedAt) }
        var record = stored.record
        record.revokedAt = now
        defer { keyring.apiKeyCredentialsChanged() }
        let revoked = try await store.revokeAPIKey(
            id: keyID, merchantID: merchant.id, at: now, binding: try await apiKeys.binding(of: record),
            audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "api_key.revoked", objectType: "api_key", objectID: keyID))
        if !revoked { throw MerchantError.apiKeyNotFound(keyID) }
    }

    /// A merchant's keys, newest first, each with whether its row is as this vault wrote it (false:
    /// inserted, moved, raised or un-revoked behind the vault's back; such a key authenticates nobody).
    public func keys(merchantName: String) async throws -> [(record: APIKeyRecord, intact: Bool)] {
        let merchant = try await existing(merchantName)
        var keys: [(record: APIKeyRecord, intact: Bool)] = []
        for stored in try await store.apiKeys(merchantID: merchant.id) {
            keys.append((stored.record, await apiKeys.isIntact(stored)))
        }
        return keys
    }

    /// The audit action recording that a merchant's API key rows of an earlier build were bound.
    public static let legacyKeysBoundAction = "api_keys.bound"
    /// The `merchant.created` detail of a merchant created with bound keys (by this build or later).
    static let keysBoundDetail = "apiKeysBound"
    /// The `merchant.created` detail of a merchant whose schedule and step rows are bound from the
    /// start (created by this build or later): an unbound row of it was inserted behind the vault's back.
    public static let schedulesBoundDetail = "schedulesBound"
    /// The `merchant.created` detail of a merchant whose transaction rows are bound from the start
    /// (created by this build or later): an unbound row of it was inserted behind the vault's back.
    public static let transactionsBoundDetail = "transactionsBound"
    /// The `merchant.created` detail of a merchant whose queued e-mail receipts are bound from the
    /// start (created by this build or later): an unbound receipt of it was inserted behind the vault's back.
    public static let receiptsBoundDetail = "receiptsBound"
    /// The `merchant.created` detail of a merchant whose webhook signing windows are bound from the
    /// start (created by this build or later): an unbound window of it was set behind the vault's back.
    public static let webhookWindowsBoundDetail = "webhookWindowsBound"

    /// Binds the API key rows an earlier build stored with a plain SHA-256 and no binding, as they
    /// stand, once per merchant (``LegacyRowBinder``: an `api_keys.bound` audit event in the
    /// merchant's keyed chain once all its rows are bound; a merchant created by this build says so
    /// in its `merchant.created` event); run at start-up, before serving.
    ///
    /// A legacy-shaped row of a merchant already bound was not written by an earlier build but
    /// inserted since, by someone writing to the database: it is left unbound (it authenticates
    /// nobody; `merchant key --list` shows it `tampered`) and returned in `refused`. Rows of
    /// off-boarded merchants (keys destroyed) are left: they can never authenticate.
    public func bindLegacyAPIKeys(batchSize: Int = 500) async throws -> (bound: Int, refused: [String]) {
        let store = self.store
        let apiKeys = self.apiKeys
        let keyring = self.keyring
        let binder = LegacyRowBinder<StoredAPIKey>(
            markerAction: Self.legacyKeysBoundAction, boundAtCreation: Self.keysBoundDetail,
            identity: { ($0.record.id, $0.record.merchantID) },
            unboundRows: { try await store.legacyAPIKeys(limit: $0) },
            bind: { keys, _ in
                var upgraded: [(id: String, secret: [UInt8], binding: [UInt8])] = []
                for key in keys {
                    let (secret, binding) = try await apiKeys.upgraded(key)
                    upgraded.append((key.record.id, secret, binding))
                }
                defer { keyring.apiKeyCredentialsChanged() }
                try await store.bindLegacyAPIKeys(upgraded)
                return ["keys": upgraded.count]
            })
        return try await binder.run(audit: store, batchSize: batchSize)
    }

    /// Off-boards a merchant: destroys its keys (every card becomes unreadable at once) and revokes its API keys.
    public func offboard(name: String, actor: String, now: Date = Date()) async throws {
        let merchant = try await existing(name)
        defer { keyring.apiKeyCredentialsChanged() }
        try await store.destroyMerchantKeys(
            merchantID: merchant.id, at: now,
            audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "merchant.offboarded", objectType: "merchant", objectID: merchant.id))
        keyring.evict(merchantID: merchant.id)
        try await keyring.announceKeyChange()
    }

    /// Adds a new data-key version for the merchant and re-seals its gateway credentials under it;
    /// its cards are then re-sealed by `SecureCardService.resealAll`.
    /// - Returns: the new data-key version.
    public func rotateDataKey(merchantID: String, actor: String, now: Date = Date()) async throws -> Int {
        let (_, current) = try await keyring.key(merchantID: merchantID, purpose: .data)
        let next = try keyring.newDataKeyVersion(merchantID: merchantID, version: current + 1, now: now)
        try await store.storeWrappedKeys(
            [next], audit: AuditEntry(merchantID: merchantID, actor: actor, action: "keys.data_key_rotated", objectType: "merchant",
                                      objectID: merchantID, details: ["version": String(next.version)]))
        keyring.noteNewestVersion(merchantID: merchantID, purpose: .data, version: next.version)
        try await keyring.announceKeyChange()
        if let merchant = try await store.merchant(id: merchantID), try await store.sealedGatewayCredentials(merchantID: merchantID) != nil {
            let credentials = try await gatewayCredentials(merchantID: merchantID)
            let sealed = try await sealCredentials(credentials, merchantID: merchantID, dataKeyVersion: next.version)
            defer { keyring.apiKeyCredentialsChanged() }
            try await store.updateMerchant(
                merchant, sealedGatewayCredentials: sealed,
                audit: AuditEntry(merchantID: merchantID, actor: actor, action: "merchant.credentials_resealed", objectType: "merchant",
                                  objectID: merchantID))
        }
        return next.version
    }

    /// Destroys the merchant's superseded data-key versions that no stored record uses any more
    /// (run after re-encryption), and forgets them in this process at once.
    /// - Returns: the destroyed versions.
    public func destroySupersededDataKeys(merchantID: String, actor: String, now: Date = Date()) async throws -> [Int] {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        let destroyed = try await store.destroyUnusedDataKeys(merchantID: merchantID, below: newest, at: now, actor: actor)
        if !destroyed.isEmpty {
            keyring.evict(merchantID: merchantID)
            try await keyring.announceKeyChange()
        }
        return destroyed
    }

    /// The merchant's gateway credentials, opened from their sealed form.
    public func gatewayCredentials(merchantID: String) async throws -> [String: String] {
        guard let sealed = try await store.sealedGatewayCredentials(merchantID: merchantID) else { return [:] }
        return try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.credentialsKind, recordID: merchantID).decodeJSON([String: String].self)
    }

    /// The merchant and key a bearer token belongs to, with the merchant's custom-field definitions
    /// as read beside them (for a registration; nil when the key was verified a moment ago and not
    /// read again), or nil when the token is unknown, revoked, expired, its merchant is off-boarded,
    /// or its row fails its binding (``APIKeyBinding``, which covers the expiry: one extended in SQL
    /// fails it).
    ///
    /// A key that passed every check is kept in memory (``APIKeyCredentialCache``) and not read again
    /// while the key generation stays where it was (changes of keys and merchants advance it; other
    /// processes see it within ``Keyring/generationCheckInterval``, this one at once); every check is
    /// made again on each request.
    ///
    /// Records the key's last use at most once per ``APIKeyUseThrottle/interval`` per key, so a
    /// busy key costs one write a minute, not one per request; a failed record does not fail the request.
    public func authenticate(bearer: String, now: Date = Date()) async throws
        -> (merchant: Merchant, key: APIKeyRecord, customFields: StoredCustomFieldDefinitions?)?
    {
        guard let keyID = APIKeys.keyID(ofBearer: bearer) else { return nil }
        let generation = await keyring.apiKeyGeneration()
        let stored: StoredAPIKey
        let merchant: Merchant
        let customFields: StoredCustomFieldDefinitions?
        let kept = generation.flatMap { keyring.apiKeyCredentials.credential(keyID: keyID, generation: $0, now: now) }
        if let kept {
            (stored, merchant, customFields) = (kept.key, kept.merchant, nil)
        } else {
            guard let credential = try await store.apiKeyCredential(id: keyID), let read = credential.merchant else { return nil }
            (stored, merchant, customFields) = (credential.key, read, credential.customFields)
        }
        guard stored.record.revokedAt == nil, !stored.record.isExpired(at: now), merchant.status == .active,
            await apiKeys.verify(bearer: bearer, stored)
        else { return nil }
        if kept == nil, let generation {
            keyring.apiKeyCredentials.remember(stored, merchant: merchant, generation: generation, readAt: now)
        }
        if keyUses.shouldRecord(keyID: keyID, lastRecorded: stored.record.lastUsedAt, now: now) {
            try? await store.recordAPIKeyUse(id: keyID, at: now, unlessUsedSince: now.addingTimeInterval(-APIKeyUseThrottle.interval))
        }
        return (merchant, stored.record, customFields)
    }

    private func existing(_ name: String) async throws -> Merchant {
        guard let merchant = try await store.merchant(named: name) else { throw MerchantError.notFound(name) }
        return merchant
    }

    private func sealCredentials(_ credentials: [String: String]?, merchantID: String, dataKeyVersion: Int?) async throws -> [UInt8]? {
        guard let credentials else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(credentials)
        return try await keyring.sealRecord(Array(json), merchantID: merchantID, kind: Self.credentialsKind, recordID: merchantID, dataKeyVersion: dataKeyVersion)
    }

    /// Refuses a gateway without every credential it needs: accepted, such a merchant would fail
    /// every charge of every nightly run with a configuration error nobody sees until then.
    private func requireCredentials(_ credentials: [String: String], of merchant: Merchant) throws {
        let missing = gateways.missingCredentials(credentials, gateway: merchant.gateway.name)
        guard !missing.isEmpty else { return }
        throw MerchantSettingError(
            setting: "gateway-credential",
            message: "gateway \(merchant.gateway.name) needs " + missing.joined(separator: ", ")
                + " (give " + missing.map { "--gateway-credential \($0)=..." }.joined(separator: " ") + ")")
    }

    private func apply(_ settings: MerchantSettings, to merchant: inout Merchant) throws {
        if let gateway = settings.gateway {
            guard gateways.knows(gateway) else {
                throw MerchantSettingError(setting: "gateway", message: "unknown gateway '\(gateway)' (\(gateways.names.joined(separator: ", ")))")
            }
            if gateway != merchant.gateway.name { merchant.gateway.url = nil }
            merchant.gateway.name = gateway
        }
        if let url = settings.gatewayURL {
            do {
                try EndpointPolicy.gatewayEndpoint(url)
            } catch {
                throw MerchantSettingError(setting: "gateway-url", message: error.message)
            }
            merchant.gateway.url = url
        }
        if let credentials = settings.gatewayCredentials {
            let allowed = gateways.credentialNames[merchant.gateway.name] ?? []
            for name in credentials.keys.sorted() where !allowed.contains(name) {
                throw MerchantSettingError(
                    setting: "gateway-credential",
                    message: "'\(name)' is not a credential of gateway \(merchant.gateway.name) (accepted: \(allowed.sorted().joined(separator: ", ")))")
            }
        }
        if let zone = settings.timeZone {
            guard TimeZone(identifier: zone) != nil else { throw MerchantSettingError(setting: "time-zone", message: "unknown IANA time zone '\(zone)'") }
            merchant.timeZone = zone
        }
        if let url = settings.callbackURL {
            do {
                try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: allowPrivateCallbackTargets)
            } catch {
                throw MerchantSettingError(setting: "callback-url", message: error.message)
            }
            merchant.callbackURL = url
        }
        if let code = settings.currency {
            do {
                merchant.gateway.currency = try Currency(code: code)
            } catch {
                throw MerchantSettingError(setting: "currency", message: "unknown ISO 4217 currency code '\(code)'")
            }
        }
        if let refused = gateways.currencyRefusal(merchant.gateway.currency.code, gateway: merchant.gateway.name) {
            throw MerchantSettingError(setting: "currency", message: refused)
        }
        if let verify = settings.verifyOnRegistration { merchant.verifyOnRegistration = verify }
        if let allow = settings.allowCredit { merchant.allowsCredit = allow }
    }
}

extension MerchantSettings {
    var changedNames: [String] {
        var names: [String] = []
        if gateway != nil { names.append("gateway") }
        if gatewayURL != nil { names.append("gatewayUrl") }
        if timeZone != nil { names.append("timeZone") }
        if callbackURL != nil { names.append("callbackUrl") }
        if verifyOnRegistration != nil { names.append("verifyOnRegistration") }
        if allowCredit != nil { names.append("allowCredit") }
        if currency != nil { names.append("currency") }
        return names
    }
}
