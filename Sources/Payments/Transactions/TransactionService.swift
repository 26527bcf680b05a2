public import Foundation
public import Vault

/// Sales, authorizations, verifications and their follow-ups.
///
/// Every transaction is recorded as `pending` before its gateway call, with an idempotency key
/// derived from its id, and updated with the outcome after: a crash in between leaves a
/// `pending` row that can be settled with the same key, never charged twice.
public struct TransactionService: Sendable {
    private let store: any TransactionStore & AuditStore
    private let cards: SecureCardService
    private let gateways: MerchantGateways
    private let reversalWindow: TimeInterval
    private let storedCredentials: StoredCredentials?
    private let duplicates: DuplicateTransactionCheck?
    private let bindings: TransactionBinding
    private let receipts: (any TransactionReceipts)?
    private let outcomeReceipts: OutcomeReceipts
    private let receiptAddresses: TransactionReceiptAddress
    private let inheritedReceiptAddress: (any InheritedReceiptAddress)?

    /// The default reversal window: a void is allowed within 24 hours of the authorization.
    public static let defaultReversalWindow: TimeInterval = 24 * 3600

    /// Creates the service.
    /// - Parameters:
    ///   - reversalWindow: how long after its authorization a payment may still be voided (reversed).
    ///   - storedCredentials: keeps the network transaction id of a registration by sale (none is kept without it).
    ///   - duplicates: duplicate protection of sales, authorizations and credits; nil for none.
    ///   - receipts: checks and prepares e-mail receipts; nil refuses every `receiptEmail` (422
    ///     `receipts_not_configured`).
    ///   - inheritedReceiptAddress: where a follow-up of a transaction that keeps no receipt address
    ///     finds one (a schedule's address for a charge of one of its steps); nil for nowhere.
    public init(store: any TransactionStore & AuditStore, cards: SecureCardService, gateways: MerchantGateways,
                reversalWindow: TimeInterval = TransactionService.defaultReversalWindow, storedCredentials: StoredCredentials? = nil,
                duplicates: DuplicateTransactionCheck? = nil, receipts: (any TransactionReceipts)? = nil,
                inheritedReceiptAddress: (any InheritedReceiptAddress)? = nil) {
        self.receipts = receipts
        self.inheritedReceiptAddress = inheritedReceiptAddress
        self.duplicates = duplicates
        self.store = store
        self.cards = cards
        self.gateways = gateways
        self.reversalWindow = reversalWindow
        self.storedCredentials = storedCredentials
        bindings = TransactionBinding(keyring: cards.keyring)
        outcomeReceipts = OutcomeReceipts(receipts: receipts, keyring: cards.keyring)
        receiptAddresses = TransactionReceiptAddress(keyring: cards.keyring)
    }

    /// Runs a sale, authorization, verification or credit whose rules ``NewTransaction`` checked:
    /// resolves the card, charges it (recorded `pending` first) and, for a registration by sale,
    /// registers the card once the sale is approved.
    /// - Throws: `TransactionError` (422 for a stored card that cannot pay or a registration that
    ///   would fail, 409 for a duplicate or a credit the gateway does not take, 402 with the recorded
    ///   transaction, 502), `CardDataError` (422).
    /// - Parameter id: the id to record it under (an Idempotency-Key's reserved id, so a retry after
    ///   this server died finds it); a new one when nil.
    /// - Parameter definitions: the merchant's custom-field definitions when they were read already
    ///   (with the request's API key), for a registration by sale; nil reads them.
    public func create(
        _ order: NewTransaction, merchant: Merchant, actor: String, id: String? = nil, definitions: StoredCustomFieldDefinitions? = nil,
        now: Date = Date()
    ) async throws -> Transaction {
        if let address = order.receiptEmail { try checkReceipt(address) }
        var transaction = Transaction(
            id: id ?? Transaction.makeID(at: now), merchantID: merchant.id, type: order.type, amount: order.amount, currency: order.currency,
            gateway: merchant.gateway.name, now: now)
        transaction.description = order.description
        if let address = order.receiptEmail {
            // Kept (sealed) with the transaction: its receipt, its follow-ups' receipts and an
            // outcome settled later all go to it.
            transaction.sealedReceiptAddress = try await receiptAddresses.sealed(address, for: transaction)
        }
        let card = try await paymentCard(order, merchant: merchant, definitions: definitions, now: now, recordingOn: &transaction)
        let result = try await charge(order, card: card, merchant: merchant, actor: actor, now: now, recording: &transaction)
        if transaction.status == .approved, let registration = order.registration, let source = order.source {
            await registerBySale(
                registration, source: source, networkTransactionID: result.networkTransactionID, merchant: merchant, actor: actor,
                definitions: definitions, now: now, recordingOn: &transaction)
        }
        switch transaction.status {
        case .declined: throw TransactionError.declined(transaction)
        case .error, .inDoubt: throw TransactionError.gatewayFailed(transaction)
        default: return transaction
        }
    }

    /// The card step: the stored card (its token and reference recorded, a subsequent use of a stored
    /// credential) or the captured raw data; a registration by sale is checked whole here, before
    /// the gateway is called.
    private func paymentCard(
        _ order: NewTransaction, merchant: Merchant, definitions: StoredCustomFieldDefinitions?, now: Date, recordingOn transaction: inout Transaction
    ) async throws -> PaymentCard {
        let card: PaymentCard
        switch order.card {
        case .stored(let secureCardReference, let merchantReference):
            let stored = try await storedCard(secureCardReference: secureCardReference, merchantReference: merchantReference, merchant: merchant)
            card = PaymentCard(pan: stored.pan, expiry: stored.expiry, holderName: stored.holderName, cvv: nil, postalCode: nil)
            transaction.secureCardReference = stored.reference
            transaction.merchantReference = stored.merchantReference
            transaction.storedCredential = .subsequent
        case .raw(let source):
            let raw = try source.capture()
            card = PaymentCard(pan: raw.pan, expiry: raw.expiry, holderName: raw.holderName, cvv: raw.cvv, postalCode: nil)
        }
        transaction.cardType = card.pan.brand.rawValue
        transaction.maskedNumber = card.pan.masked
        if let registration = order.registration, let source = order.source {
            try await checkRegistration(registration, source: source, merchant: merchant, definitions: definitions, now: now)
            transaction.storedCredential = .initial
        }
        return card
    }

    /// The charge step: the merchant's gateway, the duplicate check, the `pending` record, the
    /// gateway call (an expired card is declined by the vault without one) and the recorded outcome.
    private func charge(
        _ order: NewTransaction, card: PaymentCard, merchant: Merchant, actor: String, now: Date, recording transaction: inout Transaction
    ) async throws -> GatewayResult {
        let type = order.type
        let adapter: any GatewayAdapter
        do {
            adapter = try await gateways.adapter(for: merchant)
        } catch {
            throw TransactionError.gatewayNotConfigured("\(error)")
        }
        if type == .credit, !adapter.supportsCredit {
            throw TransactionError.notAllowed(
                code: "credit_not_supported",
                message: "The merchant's gateway (\(adapter.name)) takes no credits; refund the original sale instead (POST /v1/transactions/{id}/refund).")
        }
        var duplicatesSince: Date?
        if let duplicates, type != .verify {
            transaction.duplicateMAC = try await duplicates.mac(
                type: type, amount: order.amount, currency: order.currency, pan: card.pan, merchantID: merchant.id)
            duplicatesSince = order.allowDuplicate ? nil : duplicates.comparedSince(now)
        }
        transaction = try await bindings.bound(transaction)
        try await store.insertTransaction(
            transaction, refusingDuplicatesSince: duplicatesSince, audit: audit(transaction, actor: actor, action: "transaction.created"))

        let result: GatewayResult
        if card.expiry.isExpired(on: CivilDate.today(in: merchant.zone, now: now)) {
            result = GatewayResult(outcome: .declined(code: "expired_card", category: .hard), responseText: "Declined by the vault: the card has expired.")
        } else {
            let storedCredential: StoredCredentialUse? =
                switch order.card {
                case .stored: .customerInitiated
                case .raw: order.registration != nil ? .initial : nil
                }
            let charge = ChargeRequest(
                idempotencyKey: transaction.idempotencyKey, reference: transaction.orderReference,
                amount: Money(minorUnits: order.amount, currency: order.currency), card: card, description: order.description,
                storedCredential: storedCredential)
            switch type {
            case .sale: result = await adapter.sale(charge)
            case .authorize: result = await adapter.authorize(charge)
            case .credit: result = await adapter.credit(charge)
            default: result = await adapter.verify(charge)
            }
        }
        transaction.apply(result, now: Date())
        transaction = try await bindings.bound(transaction)
        let parties = CallbackParties(
            holderName: try await sealed(card.holderName, merchantID: merchant.id, recordID: transaction.id), merchantName: merchant.name)
        var notices = try OutcomeNotices.outcome(of: transaction, parties: parties)
        notices.receipts = await outcomeReceipts.receipts(of: transaction, merchant: merchant, now: now)
        try await store.completeTransaction(
            transaction, parentUpdate: nil, audit: audit(transaction, actor: actor, action: "transaction.\(type.rawValue)"), notices: notices)
        return result
    }

    /// The registration-by-sale step, once the sale is approved: registers the card and keeps the
    /// network's transaction id for later merchant-initiated charges.
    private func registerBySale(
        _ registration: NewTransaction.SaleRegistration, source: CardSource, networkTransactionID: String?, merchant: Merchant, actor: String,
        definitions: StoredCustomFieldDefinitions?, now: Date, recordingOn transaction: inout Transaction
    ) async {
        do {
            let registered = try await cards.register(
                SecureCardRegistration(
                    merchantReference: registration.merchantReference, source: source, customer: registration.customer,
                    customFields: registration.customFields, verify: false),
                merchant: merchant, actor: actor, definitions: definitions, now: now)
            var attached = transaction
            attached.secureCardReference = registered.reference
            attached.merchantReference = registered.merchantReference
            attached = try await bindings.bound(attached)
            try await store.attachSecureCard(
                transactionID: transaction.id, merchantID: merchant.id, secureCardReference: registered.reference,
                merchantReference: registered.merchantReference, binding: attached.binding ?? [])
            transaction = attached
            if let network = networkTransactionID {
                _ = try? await storedCredentials?.record(
                    network, secureCardReference: registered.reference, merchantID: merchant.id, gateway: merchant.gateway.name,
                    transactionID: transaction.id, replacing: true)
            }
        } catch {
            // The sale stands; the card was not registered (a concurrent registration took the
            // reference). The response shows secureCardReference null, and the audit says why; the
            // outcome's callback was queued with the outcome, and is not sent twice.
            try? await store.completeTransaction(
                transaction, parentUpdate: nil,
                audit: audit(transaction, actor: actor, action: "transaction.registration_failed"), notices: .none)
        }
    }

    /// Captures all or part of an approved authorization. Follow-ups take `childID` as their own id
    /// when given (an Idempotency-Key's reserved id), like ``create(_:merchant:actor:id:now:)``.
    /// `receiptEmail`: where the payer's receipt of an approved capture goes (checked first, 422 when it cannot be taken).
    public func capture(
        id: String, amount: Int64?, merchant: Merchant, actor: String, childID: String? = nil, receiptEmail: String? = nil, now: Date = Date()
    ) async throws -> Transaction {
        try await followUp(.capture, of: id, amount: amount, merchant: merchant, actor: actor, childID: childID, receiptEmail: receiptEmail, now: now)
    }

    /// Voids (reverses) an approved sale, authorization or capture that has not been refunded, within
    /// the reversal window after its authorization. A capture is voided with its authorization (one
    /// transaction at the gateway): the void's parent is the authorization, whose refunds refuse it.
    ///
    /// Without `amount` (or with everything that remains) the whole remainder is voided. A smaller
    /// amount is a partial reversal, sent only when the merchant's gateway reverses part of a
    /// transaction (``GatewayAdapter/supportsPartialVoid``) and the original is a sale or an
    /// uncaptured authorization; it adds to the original's ``Transaction/voidedAmount`` and leaves its
    /// status (see ``ReversalOptions``).
    /// - Throws: `TransactionError.notAllowed` with `reversal_window_passed` once the window is over
    ///   (refund instead); `TransactionError.invalid` (422) for an amount out of range or a partial
    ///   reversal the gateway or the original cannot take, naming the refund as the way.
    public func void(
        id: String, amount: Int64? = nil, merchant: Merchant, actor: String, childID: String? = nil, receiptEmail: String? = nil, now: Date = Date()
    ) async throws -> Transaction {
        try await followUp(.void, of: id, amount: amount, merchant: merchant, actor: actor, childID: childID, receiptEmail: receiptEmail, now: now)
    }

    /// Refunds all or part of what remains of a sale or a captured authorization; with
    /// `receiptEmail`, the payer is sent the receipt of an approved refund.
    public func refund(
        id: String, amount: Int64?, merchant: Merchant, actor: String, childID: String? = nil, receiptEmail: String? = nil, now: Date = Date()
    ) async throws -> Transaction {
        try await followUp(.refund, of: id, amount: amount, merchant: merchant, actor: actor, childID: childID, receiptEmail: receiptEmail, now: now)
    }

    /// How long after its authorization a payment may still be voided (`reversals.windowHours`).
    public var reversalWindowLength: TimeInterval { reversalWindow }

    /// What the merchant's set-up allows for reversals: the configured window and whether its
    /// gateway reverses part of a transaction (a property of the gateway's kind, remembered per gateway).
    public func reversalPolicy(for merchant: Merchant) async -> ReversalPolicy {
        ReversalPolicy(window: reversalWindow, partialVoid: await gateways.supportsPartialVoid(for: merchant))
    }

    /// One transaction.
    public func get(id: String, merchant: Merchant) async throws -> Transaction {
        guard let transaction = try await store.transaction(merchantID: merchant.id, id: id) else { throw TransactionError.notFound }
        return transaction
    }

    /// One transaction, or nil when the merchant has none with that id.
    public func find(id: String, merchant: Merchant) async throws -> Transaction? {
        try await store.transaction(merchantID: merchant.id, id: id)
    }

    /// A page, newest first.
    public func list(merchant: Merchant, filter: TransactionFilter, beforeSequence: Int64?, limit: Int) async throws -> [Transaction] {
        try await store.transactions(merchantID: merchant.id, filter: filter, beforeSequence: beforeSequence, limit: limit)
    }

    /// A page of the merchant's transactions in `order` after `afterSequence`. With free text
    /// (`filter.text`), the search examines at most `window.scanLimit` transactions
    /// (``TransactionSearchWindow``); other filters are served by indexes and search everything.
    public func search(
        merchant: Merchant, filter: TransactionFilter, order: TransactionSortOrder, afterSequence: Int64?, limit: Int,
        window: TransactionSearchWindow
    ) async throws -> TransactionSearchPage {
        var filter = filter
        if filter.text != nil {
            filter.windowStop = try await store.transactionSequence(
                merchantID: merchant.id, order: order, afterSequence: afterSequence, offset: window.scanLimit)
        }
        let found = try await store.transactions(merchantID: merchant.id, filter: filter, order: order, afterSequence: afterSequence, limit: limit)
        guard found.count < limit, let stop = filter.windowStop else { return TransactionSearchPage(transactions: found, resumeAfter: nil) }
        // The next page starts at the first transaction the window left out: "after" a sequence one
        // step back from it in the page's order.
        return TransactionSearchPage(transactions: found, resumeAfter: order == .newestFirst ? stop + 1 : stop - 1)
    }

    /// The search `filter` with what its free text means beyond plain matching, decided here for
    /// every storage engine: the blind-index MACs of its words (the holder name of the stored card a
    /// payment used, never compared in clear) and, when it is a date (`2026-11-26`), that day in the
    /// merchant's time zone.
    /// - Throws: `KeyringError.keyUnavailable` for an off-boarded merchant.
    public func resolvingText(of filter: TransactionFilter, merchant: Merchant) async throws -> TransactionFilter {
        guard let text = filter.text, !text.isEmpty else { return filter }
        var filter = filter
        let macs = try await cards.holderNameMACs(of: text, merchantID: merchant.id)
        filter.textNameMACs = macs.isEmpty ? nil : macs
        filter.textDay = Self.day(named: text, in: merchant.zone)
        return filter
    }

    /// The instants `[start, end)` of the local day `text` names (`yyyy-MM-dd`) in `zone` (a midnight
    /// inside a DST gap moves to the gap's end, as statistics periods do); nil when it is no date.
    static func day(named text: String, in zone: TimeZone) -> Range<Date>? {
        guard let date = CivilDate(iso: text),
            let period = StatisticsPeriod.periods(from: date, through: date, grouping: .day, zone: zone).first
        else { return nil }
        return period.start..<period.end
    }

    // MARK: - Follow-ups

    private func followUp(
        _ type: TransactionType, of parentID: String, amount requested: Int64?, merchant: Merchant, actor: String, childID: String?,
        receiptEmail: String?, now: Date
    ) async throws -> Transaction {
        if let receiptEmail { try checkReceipt(receiptEmail) }
        guard var parent = try await store.transaction(merchantID: merchant.id, id: parentID) else { throw TransactionError.notFound }
        if type == .void, parent.type == .capture, let authorizationID = parent.parentID,
            let authorization = try await store.transaction(merchantID: merchant.id, id: authorizationID)
        {
            // An authorization and its capture are one transaction at the gateway, and refunds are the
            // authorization's: a void of the capture is a void of its authorization, checked against the
            // authorization's refunds and voids (the gateway refuses to void a refunded transaction, so
            // a capture voided after a refund of its authorization was sent and came back a 502).
            parent = authorization
        }
        let adapter: any GatewayAdapter
        do {
            adapter = try await gateways.adapter(for: merchant)
        } catch {
            throw TransactionError.gatewayNotConfigured("\(error)")
        }
        let amount = try Self.followUpAmount(type, parent: parent, requested: requested, partialVoid: adapter.supportsPartialVoid)
        try await checkIntegrity(of: parent, before: type, merchant: merchant, actor: actor)
        var child = Transaction(
            id: childID ?? Transaction.makeID(at: now), merchantID: merchant.id, type: type, amount: amount, currency: parent.currency,
            gateway: parent.gateway, now: now)
        child.parentID = parent.id
        child.secureCardReference = parent.secureCardReference
        child.merchantReference = parent.merchantReference
        child.cardType = parent.cardType
        child.maskedNumber = parent.maskedNumber
        child.scheduleID = parent.scheduleID
        child.stepID = nil
        // The follow-up's receipt goes to the address its request gives, or else to the one its
        // original keeps (one that no longer opens sends none).
        if let address = try await receiptAddress(given: receiptEmail, original: parent) {
            child.sealedReceiptAddress = try await receiptAddresses.sealed(address, for: child)
        }
        let reversal = type == .void ? reversalDeadline(of: parent) : nil
        let check: @Sendable (Transaction, [Transaction]) throws -> Void = { parent, followUps in
            try Self.checkFollowUp(type, amount: amount, parent: parent, followUps: followUps)
            if let reversal { try Self.checkReversalWindow(reversal, now: now) }
        }
        child = try await bindings.bound(child)
        try await store.insertFollowUp(child, check: check, audit: audit(child, actor: actor, action: "transaction.created"))
        let request = FollowUpRequest(
            idempotencyKey: child.idempotencyKey, reference: child.orderReference, gatewayTransactionID: parent.gatewayTransactionID ?? "",
            amount: Money(minorUnits: amount, currency: parent.currency), card: nil, cardLast4: parent.maskedNumber.map { String($0.suffix(4)) })
        var result: GatewayResult
        switch type {
        case .capture: result = await adapter.capture(request)
        case .void: result = await adapter.void(request)
        default:
            result = await adapter.refund(request)
            if let code = result.errorCode,
                ["not_refundable", "not_settled"].contains(code)
                    || (code == "gateway_rejected" && (result.responseText ?? "").lowercased().contains("settled")),
                amount == parent.voidableAmount, parent.voidedAmount == 0
            {
                child.type = .void
                result = await adapter.void(request)
            }
        }
        child.apply(result, now: Date())
        child = try await bindings.bound(child)
        let parties = CallbackParties(
            holderName: try await sealed(await holderName(of: parent, merchant: merchant), merchantID: merchant.id, recordID: child.id),
            merchantName: merchant.name)
        var notices = try OutcomeNotices.outcome(of: child, parties: parties)
        notices.receipts = await outcomeReceipts.receipts(of: child, merchant: merchant, now: now)
        try await store.completeTransaction(
            child, parentUpdate: ParentUpdate.approved(child, of: parent), audit: audit(child, actor: actor, action: "transaction.\(child.type.rawValue)"),
            notices: notices)
        switch child.status {
        case .declined: throw TransactionError.declined(child)
        case .error, .inDoubt: throw TransactionError.gatewayFailed(child)
        default: return child
        }
    }

    /// Refuses a `receiptEmail` the vault could not write to (no receipts configured, a bad
    /// address), before anything is recorded.
    private func checkReceipt(_ address: String) throws {
        guard let receipts else {
            throw TransactionError.invalid(
                field: "receiptEmail", code: "receipts_not_configured",
                message: "receiptEmail asks for an e-mail receipt, but this vault cannot send e-mail.")
        }
        try receipts.check(address, field: "receiptEmail")
    }

    /// Where a follow-up's receipt goes: the address its request gives, else the one its original
    /// keeps, else the one its original inherits (a schedule's, for a charge of one of its steps);
    /// nil when the one found does not open (the receipt is left out, the follow-up goes ahead) or
    /// when the vault sends no e-mail.
    private func receiptAddress(given: String?, original: Transaction) async throws -> String? {
        guard receipts != nil else { return nil }
        if let given { return given }
        if original.sealedReceiptAddress != nil { return try? await receiptAddresses.opened(of: original) }
        guard let inheritedReceiptAddress else { return nil }
        return try? await inheritedReceiptAddress.receiptAddress(of: original)
    }

    /// Refuses a follow-up of an original whose stored row is not as the vault wrote it (its
    /// amount, card, currency, gateway id or original changed in the database, or its binding
    /// removed): nothing is recorded and nothing is sent to the gateway, and the refusal is audited
    /// (`transaction.integrity_failed`) so the operator sees the row that was altered.
    /// - Throws: `TransactionError.notAllowed` `transaction_integrity_failed` (409).
    private func checkIntegrity(of parent: Transaction, before type: TransactionType, merchant: Merchant, actor: String) async throws {
        guard await !bindings.isIntact(parent) else { return }
        try await store.appendAudit(
            AuditEntry(
                merchantID: merchant.id, actor: actor, action: Self.integrityFailedAction, objectType: "transaction", objectID: parent.id,
                details: ["followUp": type.rawValue]))
        throw TransactionError.notAllowed(
            code: Self.integrityFailedCode,
            message: "The stored record of transaction \(parent.id) failed its integrity check (it was altered in the database); "
                + "no \(type.rawValue) was recorded or sent. Check it against the gateway's records.")
    }

    /// The error code of a follow-up refused because its original's stored row was altered.
    public static let integrityFailedCode = "transaction_integrity_failed"
    /// The audit action recording such a refusal.
    public static let integrityFailedAction = "transaction.integrity_failed"

    /// The amount a follow-up moves: the one requested, or by default everything that remains
    /// (``Transaction/voidableAmount``, ``Transaction/refundableAmount``, an authorization's
    /// unreversed amount). Checked against the copy read before the write; ``checkFollowUp`` checks
    /// again inside it.
    static func followUpAmount(_ type: TransactionType, parent: Transaction, requested: Int64?, partialVoid: Bool = false) throws -> Int64 {
        let available = switch type {
        case .capture: parent.amount - parent.voidedAmount
        case .refund: parent.refundableAmount
        default: parent.voidableAmount
        }
        if available <= 0 {
            // Nothing remains because of the original's state (voided, refunded, not captured): the
            // state conflict (409) says why, not the amount.
            try checkFollowUp(type, amount: 0, parent: parent, followUps: [])
        }
        switch type {
        case .capture:
            let capturable = parent.amount - parent.voidedAmount
            let amount = requested ?? capturable
            guard amount > 0, amount <= capturable else {
                throw TransactionError.invalid(field: "amount", code: "amount_exceeds_authorized", message: "A capture may take 1 to \(capturable) minor units.")
            }
            return amount
        case .refund:
            let refundable = parent.refundableAmount
            let amount = requested ?? refundable
            guard amount > 0, amount <= refundable else {
                throw TransactionError.invalid(field: "amount", code: "amount_exceeds_refundable", message: "At most \(refundable) minor units remain to refund.")
            }
            return amount
        default:
            let voidable = parent.voidableAmount
            guard let requested, requested != voidable, voidable > 0 else { return voidable }
            guard requested > 0, requested < voidable else {
                throw TransactionError.invalid(
                    field: "amount", code: "amount_exceeds_voidable", message: "A void may reverse 1 to \(voidable) minor units.")
            }
            guard parent.allowsPartialVoid else {
                throw TransactionError.invalid(
                    field: "amount", code: "partial_void_not_allowed",
                    message: "A captured authorization is voided whole; to return part of it, refund that amount instead: "
                        + "POST /v1/transactions/\(parent.id)/refund with {\"amount\": \(requested)}.")
            }
            guard partialVoid else {
                throw TransactionError.invalid(
                    field: "amount", code: "partial_void_not_supported",
                    message: "The merchant's gateway voids whole transactions only; to return part of it, refund that amount instead: "
                        + "POST /v1/transactions/\(parent.id)/refund with {\"amount\": \(requested)}.")
            }
            return requested
        }
    }

    static func checkFollowUp(_ type: TransactionType, amount: Int64, parent: Transaction, followUps: [Transaction]) throws {
        let live = followUps.filter { [.pending, .approved, .inDoubt, .needsReview].contains($0.status) }
        // Follow-ups sent and not yet settled; approved ones are already in the original's amounts.
        let open = live.filter { $0.status != .approved }
        switch type {
        case .capture:
            guard parent.type == .authorize else { throw TransactionError.notAllowed(code: "not_capturable", message: "Only an authorization can be captured.") }
            guard parent.status == .approved, !live.contains(where: { $0.type == .capture }), !open.contains(where: { $0.type == .void }) else {
                throw TransactionError.notAllowed(code: "not_capturable", message: "The authorization is \(parent.status.rawValue) and cannot be captured.")
            }
            guard amount <= parent.amount - parent.voidedAmount else {
                throw TransactionError.invalid(
                    field: "amount", code: "amount_exceeds_authorized",
                    message: "A capture may take 1 to \(parent.amount - parent.voidedAmount) minor units.")
            }
        case .void:
            guard [.sale, .authorize, .capture].contains(parent.type) else {
                throw TransactionError.notAllowed(code: "not_voidable", message: "A \(parent.type.rawValue) cannot be voided.")
            }
            guard parent.refundedAmount == 0, !live.contains(where: { $0.type == .refund }) else {
                throw TransactionError.notAllowed(code: "already_refunded", message: "A refunded transaction cannot be voided.")
            }
            guard [.approved, .captured].contains(parent.status) else {
                throw TransactionError.notAllowed(code: "not_voidable", message: "The transaction is \(parent.status.rawValue) and cannot be voided.")
            }
            // A capture still at the gateway may turn the authorization captured at any moment: a
            // void sent now would race it there.
            guard !open.contains(where: { $0.type == .capture }) else {
                throw TransactionError.notAllowed(
                    code: "not_voidable", message: "A capture of this authorization is still at the gateway; void it once the capture has settled.")
            }
            let reserved = open.filter { $0.type == .void }.reduce(Int64(0)) { $0 + $1.amount }
            guard amount <= parent.voidableAmount - reserved else {
                throw TransactionError.notAllowed(
                    code: "not_voidable",
                    message: "A void of this transaction is in progress; at most \(max(0, parent.voidableAmount - reserved)) minor units remain to void.")
            }
        default:
            let refundableStatus: Bool = switch parent.type {
            case .sale: [.approved, .partiallyRefunded].contains(parent.status)
            case .authorize: [.captured, .partiallyRefunded].contains(parent.status)
            default: false
            }
            guard refundableStatus, !open.contains(where: { $0.type == .void }) else {
                throw TransactionError.notAllowed(code: "not_refundable", message: "The transaction is \(parent.status.rawValue) and cannot be refunded.")
            }
            let base = parent.type == .authorize ? parent.capturedAmount : parent.amount - parent.voidedAmount
            let reserved = live.filter { $0.type == .refund }.reduce(Int64(0)) { $0 + $1.amount }
            guard reserved + amount <= base else {
                throw TransactionError.invalid(
                    field: "amount", code: "amount_exceeds_refundable", message: "At most \(max(0, base - reserved)) minor units remain to refund.")
            }
        }
    }

    /// When a void of `parent` stops being allowed, and what to refund instead. A void of a capture is
    /// made on its authorization (`followUp`), so the window runs from the authorization, which is also what a refund takes.
    private func reversalDeadline(of parent: Transaction) -> ReversalDeadline {
        ReversalDeadline(
            authorizedAt: parent.createdAt, closesAt: parent.voidableUntil(window: reversalWindow),
            window: reversalWindow, refundID: parent.id)
    }

    static func checkReversalWindow(_ deadline: ReversalDeadline, now: Date) throws {
        guard now >= deadline.closesAt else { return }
        throw TransactionError.notAllowed(
            code: "reversal_window_passed",
            message: "A void (reversal) is allowed only within \(deadline.windowText) of the authorization (at \(Timestamp.string(deadline.authorizedAt))); "
                + "refund it instead: POST /v1/transactions/\(deadline.refundID)/refund.")
    }

    // MARK: - Helpers

    /// `value` sealed for a webhook event about `recordID` (``WebhookFieldSeal``); nil for nil.
    private func sealed(_ value: String?, merchantID: String, recordID: String) async throws -> String? {
        guard let value else { return nil }
        return try await cards.webhookFields.seal(value, merchantID: merchantID, recordID: recordID)
    }

    /// The holder name of the stored card `transaction` was paid with; nil for raw card data (its
    /// name is not kept) or a card that can no longer be read.
    private func holderName(of transaction: Transaction, merchant: Merchant) async -> String? {
        guard let reference = transaction.secureCardReference else { return nil }
        return try? await cards.cardForCharge(reference: reference, merchantID: merchant.id).holderName
    }

    private func storedCard(secureCardReference: String?, merchantReference: String?, merchant: Merchant) async throws
        -> (reference: String, merchantReference: String, pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?)
    {
        let card: SecureCard
        do {
            if let token = secureCardReference {
                card = try await cards.retrieve(reference: token, merchant: merchant)
            } else {
                card = try await cards.retrieve(merchantReference: merchantReference ?? "", merchant: merchant)
            }
        } catch SecureCardError.notFound {
            let field = secureCardReference != nil ? "secureCardReference" : "merchantReference"
            throw TransactionError.invalid(field: field, code: "not_found", message: "No live secure card with that reference.")
        }
        guard card.status == .active else {
            throw TransactionError.invalid(field: "secureCardReference", code: "card_deleted", message: "The secure card was deleted.")
        }
        let charge = try await cards.cardForCharge(reference: card.reference, merchantID: merchant.id)
        return (card.reference, card.merchantReference, charge.pan, charge.expiry, charge.holderName)
    }

    /// Checks the whole registration of a registration by sale before the sale reaches the gateway, as
    /// a registration would (reference, card expiry, customer, custom fields against the merchant's
    /// definitions, reference not taken): a registration that would fail is refused and charges nothing.
    private func checkRegistration(
        _ registration: NewTransaction.SaleRegistration, source: CardSource, merchant: Merchant, definitions: StoredCustomFieldDefinitions?,
        now: Date
    ) async throws {
        let request = SecureCardRegistration(
            merchantReference: registration.merchantReference, source: source, customer: registration.customer,
            customFields: registration.customFields, verify: false)
        do {
            try await cards.checkRegistration(request, merchant: merchant, definitions: definitions, now: now)
        } catch let error as CardDataError {
            let cardFields = ["method", "card", "track", "emv"]
            let isCardField = cardFields.contains { error.field == $0 || error.field.hasPrefix($0 + ".") }
            throw TransactionError.invalid(field: isCardField ? error.field : "secureCard." + error.field, code: error.code, message: error.message)
        } catch SecureCardError.referenceTaken {
            throw TransactionError.notAllowed(code: "merchant_reference_taken", message: "A live secure card with that merchantReference already exists.")
        }
    }

    private func audit(_ transaction: Transaction, actor: String, action: String) -> AuditEntry {
        var details = ["type": transaction.type.rawValue, "status": transaction.status.rawValue, "amount": String(transaction.amount),
                       "currency": transaction.currency.code]
        if let card = transaction.secureCardReference { details["secureCardReference"] = card }
        if let masked = transaction.maskedNumber { details["last4"] = String(masked.suffix(4)) }
        if let parent = transaction.parentID { details["parent"] = parent }
        return AuditEntry(merchantID: transaction.merchantID, actor: actor, action: action, objectType: "transaction", objectID: transaction.id, details: details)
    }
}
