public import Foundation

/// A live version of a merchant's webhook signing key and how long it signs: the newest version
/// signs with no end (`signsUntil` nil); a version replaced by a rotation signs beside it until
/// `signsUntil`, the end of the rotation's overlap.
public struct WebhookSigningWindow: Sendable, Equatable {
    /// The merchant whose key this is.
    public var merchantID: String
    /// The key's version (`merchant_keys.version`, purpose `webhook`).
    public var version: Int
    /// When a replaced version stops signing; nil for a version no rotation has replaced.
    public var signsUntil: Date?
    /// The row binding of `signsUntil` (``WebhookSigningWindowBinding``); nil when none is set or
    /// the row is of an earlier build (bound once at start).
    public var binding: [UInt8]?

    /// A window as stored or about to be.
    public init(merchantID: String, version: Int, signsUntil: Date?, binding: [UInt8]?) {
        self.merchantID = merchantID
        self.version = version
        self.signsUntil = signsUntil
        self.binding = binding
    }
}

extension WebhookSigningWindow {
    /// The row of `merchant_keys` (`merchant_id`, `version`, `signs_until`, `signs_until_binding`)
    /// as both engines store it.
    /// - Throws: `StoredRowError` for a `signs_until` this build cannot read.
    public init(storedRow row: some StoredRow) throws {
        let merchantID = try row.string("merchant_id")
        let version = try row.int("version")
        let stored = TableRow(row, table: "merchant_keys", id: "\(merchantID)/webhook/\(version)")
        self.init(
            merchantID: merchantID, version: version, signsUntil: try stored.optionalInstant("signs_until"),
            binding: try row.optionalBlob("signs_until_binding"))
    }
}

/// The signing window of a replaced webhook key, bound under the row-binding mechanism
/// (``RowBinding``, kind `webhook_signing_window`: the merchant, the key's version and the end of
/// its window), so that someone who can write to the database but holds no key cannot keep a
/// retired secret signing by raising `signs_until`: a window that fails its check signs nothing
/// and is reported by `vault audit verify`. The domain decides every window (at rotation) and checks
/// it wherever it is read; the storage engines only store the column.
public struct WebhookSigningWindowBinding: Sendable {
    /// The row kind under ``RowBinding``.
    public static let kind = "webhook_signing_window"
    /// The audit action recording that a merchant's windows of an earlier build were bound.
    public static let legacyWindowsBoundAction = "webhook_windows.bound"

    private let rows: RowBinding

    /// Binds with subkeys of the merchants' fingerprint keys from `keyring`.
    public init(keyring: Keyring) {
        rows = RowBinding(keyring: keyring)
    }

    /// `window` with the binding of its `signsUntil` (nil binding for a window with no end).
    public func bound(_ window: WebhookSigningWindow) async throws -> WebhookSigningWindow {
        var window = window
        window.binding =
            if let until = window.signsUntil {
                try await rows.binding(kind: Self.kind, merchantID: window.merchantID, fields: Self.fields(window.version, until))
            } else {
                nil
            }
        return window
    }

    /// Whether the window is as the vault wrote it: no end and no binding, or an end whose binding
    /// matches. False for an end set, raised or moved in the database, and for a merchant whose
    /// keys are destroyed.
    public func isIntact(_ window: WebhookSigningWindow) async -> Bool {
        guard let until = window.signsUntil else { return window.binding == nil }
        return await rows.isIntact(
            kind: Self.kind, merchantID: window.merchantID, fields: Self.fields(window.version, until), binding: window.binding)
    }

    /// The versions that sign a delivery at `now`, newest first, of a merchant's live `windows`
    /// (newest first): the newest version, then each older one whose intact window ends after `now`.
    public func signingVersions(_ windows: [WebhookSigningWindow], now: Date) async -> [Int] {
        var versions: [Int] = []
        for (index, window) in windows.enumerated() {
            if index == 0 {
                versions.append(window.version)
            } else if let until = window.signsUntil, until > now, await isIntact(window) {
                versions.append(window.version)
            }
        }
        return versions
    }

    /// Binds the windows an earlier build stored without a binding, as they stand, once per
    /// merchant (``LegacyRowBinder``: a `webhook_windows.bound` audit event once all its windows
    /// are bound; a merchant created by this build says so in its `merchant.created` event); run
    /// at start-up, before serving. An unbound window of a merchant already bound was set in the
    /// database since: it is left unbound (it signs nothing) and returned in `refused`.
    public func bindLegacyWindows(in store: any WebhookKeyStore & AuditStore, batchSize: Int = 500) async throws
        -> (bound: Int, refused: [String])
    {
        try await Self.legacyBinder(store: store, binding: self).run(audit: store, batchSize: batchSize)
    }

    /// Records, once, that the merchant's windows are all bound, for a merchant an earlier build
    /// created that has no `webhook_windows.bound` event yet (it had no window of an earlier build
    /// to bind): run before its first rotation by this build, so that a window of it found unbound
    /// at a later start-up was stripped in the database, and is refused, not bound as it stands.
    public func recordWindowsBound(merchantID: String, in store: any WebhookKeyStore & AuditStore) async throws {
        guard try await !Self.legacyBinder(store: store, binding: self).rowsAreBound(merchantID: merchantID, in: store) else { return }
        try await store.appendAudit(
            AuditEntry(
                merchantID: merchantID, actor: "system", action: Self.legacyWindowsBoundAction, objectType: "merchant", objectID: merchantID,
                details: ["windows": "0"]))
    }

    private static func legacyBinder(store: any WebhookKeyStore & AuditStore, binding: Self) -> LegacyRowBinder<WebhookSigningWindow> {
        LegacyRowBinder<WebhookSigningWindow>(
            markerAction: Self.legacyWindowsBoundAction, boundAtCreation: MerchantService.webhookWindowsBoundDetail,
            identity: { ("\($0.merchantID)/webhook/\($0.version)", $0.merchantID) },
            unboundRows: { try await store.unboundWebhookSigningWindows(limit: $0) },
            bind: { windows, _ in
                var bound: [WebhookSigningWindow] = []
                for window in windows { bound.append(try await binding.bound(window)) }
                try await store.bindWebhookSigningWindows(bound)
                return ["windows": bound.count]
            })
    }

    static func fields(_ version: Int, _ until: Date) -> [String] {
        ["webhook", String(version), Timestamp.string(until)]
    }
}
