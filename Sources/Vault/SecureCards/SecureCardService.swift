public import Foundation

/// The vault's operations on secure cards: validate, verify, seal, store, and open again.
public struct SecureCardService: Sendable {
    static let cardKind = "card"
    static let detailsKind = "card_details"

    private let store: any SecureCardStore & CustomFieldStore
    /// The keyring the cards are sealed with (the charge runner binds rows with the same keys).
    public let keyring: Keyring
    private let verifier: any CardVerifier
    private let names: HolderNameIndex

    /// A service over `store`, sealing with `keyring`, verifying through `verifier`.
    public init(store: any SecureCardStore & CustomFieldStore, keyring: Keyring, verifier: any CardVerifier) {
        self.store = store
        self.keyring = keyring
        self.verifier = verifier
        names = HolderNameIndex(keyring: keyring)
    }

    /// Registers a card: validates everything first, verifies with the gateway when asked, then
    /// seals and stores it. Nothing is stored when any step fails.
    /// - Parameter definitions: the merchant's custom-field definitions when they were read already
    ///   (with the request's API key); nil reads them. Definitions of another merchant are not used.
    /// - Throws: `CardDataError` (422), `SecureCardError` (409, 402, 502).
    public func register(
        _ request: SecureCardRegistration, merchant: Merchant, actor: String, definitions: StoredCustomFieldDefinitions? = nil, now: Date = Date()
    ) async throws -> SecureCard {
        // The unique index refuses a taken reference at insert; look first only when a gateway
        // verification would otherwise be spent on a registration that cannot succeed.
        let checked = try await check(
            request, merchant: merchant, definitions: definitions, now: now, lookUpReference: request.verify ?? merchant.verifyOnRegistration)
        let (reference, captured, customer, customFields) = (checked.reference, checked.captured, checked.customer, checked.customFields)
        let token = OpaqueToken.make(prefix: "sc_", randomBits: 160)
        let verification = try await verifyIfAsked(request.verify, captured: captured, merchant: merchant, reference: token, now: now)
        let row = try await sealedRow(
            token: token, merchantID: merchant.id, merchantReference: reference.value, captured: captured, customer: customer,
            customFields: customFields, verification: verification, createdAt: now, updatedAt: now)
        try await store.insertSecureCard(
            row,
            change: .registered(
                row,
                audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "secure_card.registered", objectType: "secure_card",
                                  objectID: token, details: ["merchantReference": reference.value, "entryMode": captured.entryMode.rawValue,
                                                             "last4": captured.pan.last4, "verified": verification == nil ? "false" : "true"])))
        return Self.card(row, holderName: captured.holderName, customer: customer, customFields: customFields)
    }

    /// Checks a registration as `register` would before any gateway call, storing nothing: the
    /// merchantReference (its shape, and that no live card holds it), the card data and its expiry,
    /// the customer, and the custom fields against the merchant's definitions. Registration by sale
    /// runs it before the sale, so a registration that would fail charges nothing.
    /// - Parameter definitions: the merchant's custom-field definitions when they were read already; nil reads them.
    /// - Throws: `CardDataError` (422) naming the field, `SecureCardError.referenceTaken` (409).
    public func checkRegistration(
        _ request: SecureCardRegistration, merchant: Merchant, definitions: StoredCustomFieldDefinitions? = nil, now: Date = Date()
    ) async throws {
        _ = try await check(request, merchant: merchant, definitions: definitions, now: now, lookUpReference: true)
    }

    private func check(
        _ request: SecureCardRegistration, merchant: Merchant, definitions: StoredCustomFieldDefinitions?, now: Date, lookUpReference: Bool
    ) async throws
        -> (reference: MerchantReference, captured: CapturedCard, customer: Customer?, customFields: [CustomField])
    {
        let reference = try MerchantReference(validating: request.merchantReference)
        let captured = try request.source.capture()
        try Self.checkNotExpired(captured, merchant: merchant, now: now)
        let (customer, customFields) = try await checkDetails(
            reference: reference, customer: request.customer, customFields: request.customFields, merchant: merchant, definitions: definitions,
            lookUpReference: lookUpReference)
        return (reference, captured, customer, customFields)
    }

    /// Checks what a registration carries besides the card, as `register` does: the
    /// merchantReference (its shape, and that no live card holds it), the customer and the custom
    /// fields against the merchant's definitions. A capture session runs it when it is created, so
    /// a session that could never register its card is refused before a card is typed.
    /// - Returns: the customer as it would be stored (normalised).
    /// - Throws: `CardDataError` (422) naming the field, `SecureCardError.referenceTaken` (409).
    public func checkRegistrationDetails(merchantReference: String, customer: Customer?, customFields: [CustomField]?, merchant: Merchant)
        async throws -> Customer?
    {
        let reference = try MerchantReference(validating: merchantReference)
        return try await checkDetails(
            reference: reference, customer: customer, customFields: customFields, merchant: merchant, definitions: nil, lookUpReference: true
        ).customer
    }

    private func checkDetails(
        reference: MerchantReference, customer: Customer?, customFields: [CustomField]?, merchant: Merchant,
        definitions: StoredCustomFieldDefinitions?, lookUpReference: Bool
    ) async throws -> (customer: Customer?, customFields: [CustomField]) {
        let customer = try Self.validated(customer)
        let customFields = customFields ?? []
        let known: [CustomFieldDefinition]
        if let definitions, definitions.merchantID == merchant.id {
            known = try definitions.definitions()
        } else {
            known = try await store.customFieldDefinitions(merchantID: merchant.id)
        }
        try CustomFieldValidation.validate(customFields, against: known)
        if lookUpReference, try await store.secureCard(merchantID: merchant.id, merchantReference: reference.value) != nil {
            throw SecureCardError.referenceTaken(reference.value)
        }
        return (customer, customFields)
    }

    /// The live card with this merchantReference.
    /// - Parameter actor: who asked, for an API read: a `secure_card.retrieved` audit event is then
    ///   recorded (with the next group commit); nil for the vault's own use (charging).
    public func retrieve(merchantReference: String, merchant: Merchant, readBy actor: String? = nil) async throws -> SecureCard {
        guard let row = try await store.secureCard(merchantID: merchant.id, merchantReference: merchantReference) else {
            throw SecureCardError.notFound
        }
        let card = try await open(row)
        if let actor { recordRetrieval(card, actor: actor) }
        return card
    }

    /// The card with this token, live or deleted.
    /// - Parameter actor: who asked, for an API read (audited as `secure_card.retrieved`); nil for the vault's own use.
    public func retrieve(reference: String, merchant: Merchant, readBy actor: String? = nil) async throws -> SecureCard {
        guard let row = try await store.secureCard(merchantID: merchant.id, reference: reference) else { throw SecureCardError.notFound }
        let card = try await open(row)
        if let actor { recordRetrieval(card, actor: actor) }
        return card
    }

    private func recordRetrieval(_ card: SecureCard, actor: String) {
        store.recordRead(AuditEntry(
            merchantID: card.merchantID, actor: actor, action: "secure_card.retrieved", objectType: "secure_card", objectID: card.reference,
            details: ["merchantReference": card.merchantReference]))
    }

    /// Applies a PATCH: present fields replace, absent stay, null clears; new card data by any
    /// method replaces the card (same token).
    public func update(merchantReference: String, with update: SecureCardUpdate, merchant: Merchant, actor: String, now: Date = Date()) async throws
        -> SecureCard
    {
        guard let existing = try await store.secureCard(merchantID: merchant.id, merchantReference: merchantReference) else {
            throw SecureCardError.notFound
        }
        let current = try await open(existing)
        var customer = current.customer
        switch update.customer {
        case .absent: break
        case .clear: customer = nil
        case .set(let given): customer = try Self.validated(given.applied(to: customer))
        }
        var customFields = current.customFields
        switch update.customFields {
        case .absent: break
        case .clear: customFields = []
        case .set(let given): customFields = given
        }
        if update.customFields != .absent {
            try CustomFieldValidation.validate(customFields, against: try await store.customFieldDefinitions(merchantID: merchant.id))
        }
        var changed: [String] = []
        if update.customer != .absent { changed.append("customer") }
        if update.customFields != .absent { changed.append("customFields") }
        let row: SecureCardRow
        if let expiryDate = update.source.expiryDateAlone {
            row = try await resealed(existing, expiry: try CardExpiry(mmyy: expiryDate), customer: customer, customFields: customFields, merchant: merchant, now: now)
            changed.append("expiryDate")
        } else if update.source.isPresent {
            let captured = try update.source.capture()
            try Self.checkNotExpired(captured, merchant: merchant, now: now)
            let verification = try await verifyIfAsked(update.verify, captured: captured, merchant: merchant, reference: existing.reference, now: now)
            row = try await sealedRow(
                token: existing.reference, merchantID: merchant.id, merchantReference: existing.merchantReference, captured: captured,
                customer: customer, customFields: customFields, verification: verification, createdAt: existing.createdAt, updatedAt: now,
                sequence: existing.sequence)
            changed.append("card")
        } else {
            guard existing.sealedCard != nil else { throw SecureCardError.purged }
            var resealed = existing
            resealed.sealedDetails = try await sealDetails(customer: customer, customFields: customFields, merchantID: merchant.id, token: existing.reference)
            resealed.updatedAt = now
            row = resealed
        }
        try await store.updateSecureCard(
            row,
            change: .updated(
                row,
                audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "secure_card.updated", objectType: "secure_card",
                                  objectID: existing.reference, details: ["merchantReference": existing.merchantReference,
                                                                          "changed": changed.joined(separator: ",")])))
        return try await open(row)
    }

    /// A card with a new expiry only: same PAN, holder, token and fingerprint, the card data sealed
    /// again so it binds the new expiry (no gateway verification: the number did not change).
    private func resealed(_ existing: SecureCardRow, expiry: CardExpiry, customer: Customer?, customFields: [CustomField], merchant: Merchant, now: Date)
        async throws -> SecureCardRow
    {
        guard let sealed = existing.sealedCard else { throw SecureCardError.purged }
        try Self.checkNotExpired(expiry, field: "card.expiryDate", merchant: merchant, now: now)
        let plain = try await openCardRecord(sealed, row: existing)
        var row = existing
        row.expiry = expiry
        row.metadataBound = true
        let sealedCard = try await keyring.sealRecord(
            plain, merchantID: merchant.id, kind: Self.cardKind, recordID: existing.reference, binding: Self.metadataBinding(row))
        row.sealedCard = sealedCard
        row.keyVersion = Keyring.keyVersion(ofSealedRecord: sealedCard) ?? existing.keyVersion
        row.sealedDetails = try await sealDetails(
            customer: customer, customFields: customFields, merchantID: merchant.id, token: existing.reference, dataKeyVersion: row.keyVersion)
        row.updatedAt = now
        return row
    }

    /// Logically deletes a live card (optionally cancelling its schedules and destroying its data).
    ///
    /// With `purge`, a card already deleted can be purged too (crypto-shredded): the live card with
    /// `merchantReference` if there is one, else the card with that token (`sc_...`), else the most
    /// recently deleted card with that merchantReference whose data is still held.
    /// - Returns: the deleted card and the ids of cancelled schedules.
    public func delete(merchantReference: String, cancelSchedules: Bool, purge: Bool, merchant: Merchant, actor: String, now: Date = Date())
        async throws -> (card: SecureCard, cancelledSchedules: [String])
    {
        var found = try await store.secureCard(merchantID: merchant.id, merchantReference: merchantReference)
        if found == nil, purge {
            if merchantReference.hasPrefix(MerchantReference.tokenPrefix) {
                found = try await store.secureCard(merchantID: merchant.id, reference: merchantReference)
            } else {
                found = try await store.deletedSecureCard(merchantID: merchant.id, merchantReference: merchantReference)
            }
            if let card = found, card.status != .deleted || card.purgedAt != nil { found = nil }
        }
        guard let existing = found else {
            throw SecureCardError.notFound
        }
        let cancelled: [String]
        do {
            cancelled = try await store.deleteSecureCard(
                SecureCardDeletion(
                    merchantID: merchant.id, reference: existing.reference, purge: purge,
                    audit: AuditEntry(merchantID: merchant.id, actor: actor, action: purge ? "secure_card.purged" : "secure_card.deleted",
                                      objectType: "secure_card", objectID: existing.reference,
                                      details: ["merchantReference": existing.merchantReference, "cancelSchedules": String(cancelSchedules)]),
                    at: now),
                cancelSchedules: cancelSchedules)
        } catch let inUse as SchedulesInUse {
            throw SecureCardError.inUse(scheduleIDs: inUse.scheduleIDs)
        }
        guard let deleted = try await store.secureCard(merchantID: merchant.id, reference: existing.reference) else {
            throw SecureCardError.notFound
        }
        return (try await open(deleted), cancelled)
    }

    /// Seals holder data written into webhook events (a holder's name, a receipt phone), under the
    /// merchants' data keys this service seals cards with.
    public var webhookFields: WebhookFieldSeal { WebhookFieldSeal(keyring: keyring) }

    /// The holder-name blind-index MACs of `text`'s words for one merchant (empty for no word): how
    /// other searches (transactions by holder name) find a merchant's cards by name without the name.
    public func holderNameMACs(of text: String, merchantID: String) async throws -> [[UInt8]] {
        try await names.macs(of: text, merchantID: merchantID)
    }

    /// A page of cards.
    /// - Parameter actor: who asked, for an API read: a `secure_card.listed` (or, with a search
    ///   term or card reference, `secure_card.searched`) event then records the count and ids of the
    ///   cards opened (never the search term: it may be anything a client typed).
    public func list(merchant: Merchant, query: SecureCardQuery, readBy actor: String? = nil) async throws -> [SecureCard] {
        var query = query
        if let name = query.holderName {
            query.holderNameMACs = try await names.macs(of: name, merchantID: merchant.id)
        }
        if let text = query.text, !text.isEmpty {
            query.textNameMACs = try await names.macs(of: text, merchantID: merchant.id)
        }
        var cards: [SecureCard] = []
        for row in try await store.secureCards(merchantID: merchant.id, query: query) {
            cards.append(try await open(row))
        }
        if let actor {
            let searched = query.text != nil || query.cardReference != nil || query.holderName != nil
            store.recordRead(AuditEntry(
                merchantID: merchant.id, actor: actor, action: searched ? "secure_card.searched" : "secure_card.listed", objectType: "secure_card",
                objectID: nil, details: ["count": String(cards.count), "ids": cards.map(\.reference).joined(separator: ",")]))
        }
        return cards
    }

    /// The PAN and holder name of a live card, opened for a gateway call only, with the card's
    /// merchantReference (recorded on the charge).
    public func cardForCharge(reference: String, merchantID: String) async throws
        -> (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, merchantReference: String)
    {
        guard let row = try await store.secureCard(merchantID: merchantID, reference: reference) else { throw SecureCardError.notFound }
        return try await openForCharge(row, merchantID: merchantID)
    }

    /// Several cards of a merchant as ``cardForCharge(reference:merchantID:)`` opens each, read in
    /// one statement (the charge runner's batch): by token, a card that is not live, purged or
    /// does not open being left out, as `cardForCharge` throws for it.
    /// - Throws: the store's errors (nothing read).
    public func cardsForCharge(references: [String], merchantID: String) async throws
        -> [String: (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, merchantReference: String)]
    {
        guard !references.isEmpty else { return [:] }
        var opened: [String: (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, merchantReference: String)] = [:]
        for row in try await store.secureCards(merchantID: merchantID, references: references) {
            opened[row.reference] = try? await openForCharge(row, merchantID: merchantID)
        }
        return opened
    }

    private func openForCharge(_ row: SecureCardRow, merchantID: String) async throws
        -> (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, merchantReference: String)
    {
        guard row.status == .active else { throw SecureCardError.notFound }
        let reference = row.reference
        guard let sealed = row.sealedCard else { throw SecureCardError.purged }
        let data = try await openJSON(
            SealedCardData.self, sealed, merchantID: merchantID, kind: Self.cardKind, token: reference, binding: Self.metadataBinding(row))
        return (try PrimaryAccountNumber(validating: data.pan), row.expiry, data.holderName, row.merchantReference)
    }

    /// Re-encrypts a merchant's cards under its newest data key, in batches; safe while serving.
    /// - Returns: how many records were resealed.
    public func resealAll(merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        var total = 0
        while true {
            let batch = try await store.secureCardsToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var pairs: [(old: SecureCardRow, new: SecureCardRow)] = []
            for old in batch {
                var new = old
                new.metadataBound = true
                if let sealed = old.sealedCard {
                    let plain = try await openCardRecord(sealed, row: old)
                    new.sealedCard = try await keyring.sealRecord(
                        plain, merchantID: merchantID, kind: Self.cardKind, recordID: old.reference, binding: Self.metadataBinding(new))
                }
                if let sealed = old.sealedDetails {
                    let plain = try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.detailsKind, recordID: old.reference)
                    new.sealedDetails = try await keyring.sealRecord(plain, merchantID: merchantID, kind: Self.detailsKind, recordID: old.reference)
                }
                new.keyVersion = newest
                pairs.append((old, new))
            }
            total += try await store.resealSecureCards(pairs)
        }
    }

    /// Seals the card data of records written before it bound the clear metadata, each under the
    /// data-key version its row names (run at start-up, before serving). A record that does not
    /// open (an off-boarded merchant's, or one already tampered with) is left as it is: it is
    /// refused wherever it is used.
    /// - Returns: how many records were bound.
    public func bindLegacyMetadata(batchSize: Int = 500) async throws -> Int {
        var total = 0
        var after: Int64 = 0
        while true {
            let batch = try await store.secureCardsWithUnboundMetadata(afterSequence: after, limit: batchSize)
            guard let last = batch.last else { return total }
            after = last.sequence
            for old in batch {
                guard let sealed = old.sealedCard else { continue }
                var new = old
                new.metadataBound = true
                let plain: SecureBytes
                do {
                    plain = try await openCardRecord(sealed, row: old)
                } catch KeyringError.keyUnavailable {
                    continue
                } catch SecureCardError.integrityFailed {
                    continue
                }
                let bound = try await keyring.sealRecord(
                    plain, merchantID: old.merchantID, kind: Self.cardKind, recordID: old.reference, dataKeyVersion: old.keyVersion,
                    binding: Self.metadataBinding(new))
                if try await store.bindSecureCardMetadata(old, sealedCard: bound) { total += 1 }
            }
        }
    }

    /// Puts the holder names of cards stored before the blind index (or marked for re-indexing)
    /// into it (run at start-up, before serving). A card that does not open (an off-boarded
    /// merchant's, or one tampered with) stays out of the index.
    /// - Returns: how many cards were indexed.
    public func indexHolderNames(batchSize: Int = 500) async throws -> Int {
        var total = 0
        var after: Int64 = 0
        while true {
            let batch = try await store.secureCardsWithoutNameIndex(afterSequence: after, limit: batchSize)
            guard let last = batch.last else { return total }
            after = last.sequence
            for row in batch {
                guard let sealed = row.sealedCard else { continue }
                let holder: SealedCardHolder
                do {
                    holder = try await openJSON(
                        SealedCardHolder.self, sealed, merchantID: row.merchantID, kind: Self.cardKind, token: row.reference,
                        binding: Self.metadataBinding(row))
                } catch KeyringError.keyUnavailable {
                    continue
                } catch SecureCardError.integrityFailed {
                    continue
                }
                let macs = try await names.macs(of: holder.holderName, merchantID: row.merchantID)
                if try await store.indexSecureCardName(row, macs: macs) { total += 1 }
            }
        }
    }

    // MARK: - Sealing

    /// The clear metadata a card's sealed data is bound to (its associated data): brand, masked
    /// number (so BIN and last four), expiry, entry mode and fingerprint. Editing any of them in
    /// the database makes the record fail to open. Empty for a record sealed before binding.
    static func metadataBinding(_ row: SecureCardRow) -> [UInt8] {
        guard row.metadataBound else { return [] }
        return Array(
            "card-metadata/v1|\(row.cardType.rawValue)|\(row.maskedNumber)|\(row.expiry.month)/\(row.expiry.year)|\(row.entryMode.rawValue)|\(row.fingerprint)"
                .utf8)
    }

    /// Each live card of the merchant with whether its sealed record opens with its bound metadata
    /// (false: the record or its metadata was altered in the database), in insertion order, for
    /// `vault audit verify`. Nothing of the card leaves this function; a purged card is not listed.
    public func integrity(merchantID: String, batchSize: Int = 500) async throws -> [(reference: String, intact: Bool)] {
        var results: [(reference: String, intact: Bool)] = []
        var after: Int64?
        while true {
            let page = try await store.secureCards(merchantID: merchantID, query: SecureCardQuery(afterSequence: after, limit: batchSize))
            guard let last = page.last else { return results }
            for row in page {
                guard let sealed = row.sealedCard else { continue }
                do {
                    _ = try await openCardRecord(sealed, row: row)
                    results.append((row.reference, true))
                } catch SecureCardError.integrityFailed {
                    results.append((row.reference, false))
                }
            }
            after = last.sequence
        }
    }

    /// Opens a card's sealed PAN and holder name, checking its bound metadata.
    /// - Throws: `SecureCardError.integrityFailed` when the record or its metadata was altered.
    private func openCardRecord(_ sealed: [UInt8], row: SecureCardRow) async throws -> SecureBytes {
        do {
            return try await keyring.openRecord(sealed, merchantID: row.merchantID, kind: Self.cardKind, recordID: row.reference, binding: Self.metadataBinding(row))
        } catch CryptoError.authenticationFailed {
            throw SecureCardError.integrityFailed
        }
    }

    private func sealedRow(
        token: String, merchantID: String, merchantReference: String, captured: CapturedCard, customer: Customer?, customFields: [CustomField],
        verification: CardVerificationRecord?, createdAt: Date, updatedAt: Date, sequence: Int64 = 0
    ) async throws -> SecureCardRow {
        var row = SecureCardRow(
            reference: token, merchantID: merchantID, merchantReference: merchantReference, status: .active, cardType: captured.pan.brand,
            bin: captured.pan.bin, last4: captured.pan.last4, maskedNumber: captured.pan.masked, expiry: captured.expiry,
            entryMode: captured.entryMode, fingerprint: try await keyring.fingerprint(ofPAN: captured.pan.digits, merchantID: merchantID),
            keyVersion: 1, sealedCard: nil, sealedDetails: nil, verification: verification, createdAt: createdAt, updatedAt: updatedAt,
            deletedAt: nil, purgedAt: nil, sequence: sequence, metadataBound: true)
        let binding = Self.metadataBinding(row)
        let sealedCard = try await SealedCardData.withPlaintext(pan: captured.pan.digits, holderName: captured.holderName) { plaintext in
            try await keyring.sealRecord(plaintext, merchantID: merchantID, kind: Self.cardKind, recordID: token, binding: binding)
        }
        row.sealedCard = sealedCard
        row.keyVersion = Keyring.keyVersion(ofSealedRecord: sealedCard) ?? 1
        row.sealedDetails = try await sealDetails(
            customer: customer, customFields: customFields, merchantID: merchantID, token: token, dataKeyVersion: row.keyVersion)
        row.holderNameMACs = try await names.macs(of: captured.holderName, merchantID: merchantID)
        return row
    }

    private func sealDetails(customer: Customer?, customFields: [CustomField], merchantID: String, token: String, dataKeyVersion: Int? = nil)
        async throws -> [UInt8]
    {
        try await keyring.sealRecord(
            SealedCardDetails(customer: customer, customFields: customFields).plaintext, merchantID: merchantID, kind: Self.detailsKind, recordID: token,
            dataKeyVersion: dataKeyVersion)
    }

    /// The card as returned, from a row whose sealed parts are known in the clear already.
    static func card(_ row: SecureCardRow, holderName: String?, customer: Customer?, customFields: [CustomField]) -> SecureCard {
        SecureCard(
            reference: row.reference, merchantID: row.merchantID, merchantReference: row.merchantReference, status: row.status,
            cardType: row.cardType, bin: row.bin, last4: row.last4, maskedNumber: row.maskedNumber, expiry: row.expiry, entryMode: row.entryMode,
            fingerprint: row.fingerprint, keyVersion: row.keyVersion, holderName: holderName, customer: customer, customFields: customFields,
            verification: row.verification, createdAt: row.createdAt, updatedAt: row.updatedAt, deletedAt: row.deletedAt, purgedAt: row.purgedAt,
            sequence: row.sequence)
    }

    private func open(_ row: SecureCardRow) async throws -> SecureCard {
        var holderName: String?
        if let sealed = row.sealedCard {
            holderName = try await openJSON(
                SealedCardHolder.self, sealed, merchantID: row.merchantID, kind: Self.cardKind, token: row.reference, binding: Self.metadataBinding(row)
            ).holderName
        }
        var details = SealedCardDetails(customer: nil, customFields: [])
        if let sealed = row.sealedDetails {
            details = try await openJSON(SealedCardDetails.self, sealed, merchantID: row.merchantID, kind: Self.detailsKind, token: row.reference)
        }
        return SecureCard(
            reference: row.reference, merchantID: row.merchantID, merchantReference: row.merchantReference, status: row.status,
            cardType: row.cardType, bin: row.bin, last4: row.last4, maskedNumber: row.maskedNumber, expiry: row.expiry, entryMode: row.entryMode,
            fingerprint: row.fingerprint, keyVersion: row.keyVersion, holderName: holderName, customer: details.customer,
            customFields: details.customFields, verification: row.verification, createdAt: row.createdAt, updatedAt: row.updatedAt,
            deletedAt: row.deletedAt, purgedAt: row.purgedAt, sequence: row.sequence)
    }

    private func openJSON<T: SealedPlaintextReadable>(_ type: T.Type, _ sealed: [UInt8], merchantID: String, kind: String, token: String, binding: [UInt8] = [])
        async throws -> T
    {
        let plain: SecureBytes
        do {
            plain = try await keyring.openRecord(sealed, merchantID: merchantID, kind: kind, recordID: token, binding: binding)
        } catch CryptoError.authenticationFailed {
            throw SecureCardError.integrityFailed
        }
        return try T.read(plain)
    }

    // MARK: - Rules

    private func verifyIfAsked(_ verify: Bool?, captured: CapturedCard, merchant: Merchant, reference: String, now: Date) async throws
        -> CardVerificationRecord?
    {
        guard verify ?? merchant.verifyOnRegistration else { return nil }
        switch await verifier.verify(captured, merchant: merchant, secureCardReference: reference) {
        case .verified(let record): return record
        case .declined(let code, let category): throw SecureCardError.verificationDeclined(code: code, category: category)
        case .unavailable(let reason): throw SecureCardError.verificationUnavailable(reason: reason)
        case .refused(let field, let code, let message): throw CardDataError(field: field, code: code, message: message)
        }
    }

    static func checkNotExpired(_ captured: CapturedCard, merchant: Merchant, now: Date) throws {
        let field = switch captured.entryMode {
        case .keyed, .ocr: "card.expiryDate"
        case .track: "track"
        case .emv: "emv"
        }
        try checkNotExpired(captured.expiry, field: field, merchant: merchant, now: now)
    }

    static func checkNotExpired(_ expiry: CardExpiry, field: String, merchant: Merchant, now: Date) throws {
        if expiry.isExpired(on: CivilDate.today(in: merchant.zone, now: now)) {
            throw CardDataError(field: field, code: "expired", message: "The card expired at the end of \(expiry).")
        }
    }

    static func validated(_ customer: Customer?) throws -> Customer? {
        guard let customer else { return nil }
        let normalized = customer.normalized()
        try normalized.validate()
        return normalized
    }
}
