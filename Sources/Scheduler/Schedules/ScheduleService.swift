public import Foundation
import Payments
public import Vault

/// Limits and defaults for schedules, from configuration.
public struct ScheduleSettings: Sendable {
    /// Local time of day steps fall due when a schedule gives none.
    public var defaultTime: LocalTime
    /// Most steps a finite plan may have.
    public var maxStepCount: Int
    /// Days ahead open-ended plans are materialized.
    public var horizonDays: Int
    /// How long an unconfirmed schedule lives.
    public var confirmationTimeout: TimeInterval

    /// Creates settings.
    public init(defaultTime: LocalTime, maxStepCount: Int = 1000, horizonDays: Int = 400, confirmationTimeout: TimeInterval = 72 * 3600) {
        self.defaultTime = defaultTime
        self.maxStepCount = maxStepCount
        self.horizonDays = horizonDays
        self.confirmationTimeout = confirmationTimeout
    }
}

/// A schedule with its steps, and warnings worth showing the merchant.
public struct ScheduleView: Sendable {
    /// The schedule.
    public var schedule: Schedule
    /// Its steps in plan order (for open-ended plans, the materialized ones).
    public var steps: [ScheduleStep]
    /// E.g. the card expiring before the last step.
    public var warnings: [String]

    /// Creates a view.
    public init(schedule: Schedule, steps: [ScheduleStep], warnings: [String]) {
        self.schedule = schedule
        self.steps = steps
        self.warnings = warnings
    }
}

/// Schedules: expansion into steps, preview, confirmation and the lifecycle.
public struct ScheduleService: Sendable {
    static let contactsKind = "schedule_contacts"

    private let store: any ScheduleStore & SecureCardStore
    private let settings: ScheduleSettings
    private let keyring: Keyring
    private let binding: ScheduleBinding
    private let firstUse: (any FirstUseCheck)?
    private let emailReceipts: EmailReceiptSetup

    /// A service over `store`; receipt contacts are sealed with `keyring`.
    /// - Parameters:
    ///   - firstUse: checked (and made) on confirmation, so a schedule's merchant-initiated
    ///     charges have a customer-initiated first use of the card number to refer to; nil checks nothing.
    ///   - emailReceipts: how receipts are e-mailed; a `receiptEmail` is refused (422
    ///     `receipts_not_configured`) while it names no usable mail program and sender.
    public init(
        store: any ScheduleStore & SecureCardStore, settings: ScheduleSettings, keyring: Keyring, firstUse: (any FirstUseCheck)? = nil,
        emailReceipts: EmailReceiptSetup = .notConfigured
    ) {
        self.store = store
        self.settings = settings
        self.keyring = keyring
        self.binding = ScheduleBinding(keyring: keyring)
        self.firstUse = firstUse
        self.emailReceipts = emailReceipts
    }

    /// Expands a request into steps without saving anything.
    /// - Throws: `ScheduleError.invalid` or `PlanValidationError` (422).
    public func preview(_ request: NewSchedule, merchant: Merchant, now: Date = Date()) async throws -> ScheduleView {
        try await expand(request, merchant: merchant, now: now, id: "")
    }

    /// Creates a schedule in `pending_confirmation` with its steps; nothing is charged until `confirm`.
    public func create(_ request: NewSchedule, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        let view = try await expand(request, merchant: merchant, now: now, id: OpaqueToken.make(prefix: "sch_", randomBits: 100))
        var steps: [ScheduleStep] = []
        for step in view.steps { steps.append(try await binding.bound(step, merchantID: merchant.id)) }
        try await store.insertSchedule(
            try await binding.bound(try await sealed(view.schedule)), steps: steps,
            audit: audit(view.schedule, actor: actor, action: "schedule.created",
                         details: ["secureCardReference": view.schedule.secureCardReference, "steps": String(view.steps.count),
                                   "amount": String(view.schedule.amount), "currency": view.schedule.currency.code]))
        return view
    }

    /// One schedule with its steps.
    public func get(id: String, merchant: Merchant, now: Date = Date()) async throws -> ScheduleView {
        _ = try await store.expireUnconfirmedSchedules(now: now)
        let schedule = try await existing(id, merchant: merchant)
        return ScheduleView(schedule: schedule, steps: try await store.steps(scheduleID: id), warnings: [])
    }

    /// A page of the merchant's schedules in creation order, after the sequence `afterSequence`:
    /// only those in `status` when given, only those charging the card whose token is
    /// `secureCardReference` when given (a card's page lists its schedules this way).
    public func list(
        merchant: Merchant, status: ScheduleStatus?, secureCardReference: String? = nil, afterSequence: Int64?, limit: Int, now: Date = Date()
    ) async throws -> [Schedule] {
        _ = try await store.expireUnconfirmedSchedules(now: now)
        var page: [Schedule] = []
        for schedule in try await store.schedules(
            merchantID: merchant.id, status: status, secureCardReference: secureCardReference, afterSequence: afterSequence, limit: limit)
        {
            page.append(try await opened(schedule))
        }
        return page
    }

    /// The schedule's next step: its first step in plan order not yet settled (scheduled, being
    /// charged, waiting for a retry or in review); nil when every materialized step is settled. A
    /// list of schedules shows its date without reading whole schedules.
    public func nextStep(of schedule: Schedule) async throws -> ScheduleStep? {
        try await store.steps(scheduleID: schedule.id).first { !$0.status.isSettled }
    }

    /// `pending_confirmation` → `active` (the customer confirms the steps). The card must have a
    /// customer-initiated first use of its current number on file (``FirstUseCheck``); where none is,
    /// the check makes one or the confirmation is refused and the schedule stays unconfirmed.
    public func confirm(id: String, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        _ = try await store.expireUnconfirmedSchedules(now: now)
        var schedule = try await existing(id, merchant: merchant)
        guard schedule.status == .pendingConfirmation else { throw ScheduleError.wrongStatus(current: schedule.status, operation: "confirm") }
        try await firstUse?.ensureFirstUse(secureCardReference: schedule.secureCardReference, merchant: merchant, actor: actor)
        schedule.status = .active
        schedule.confirmedAt = now
        schedule.expiresAt = nil
        schedule.updatedAt = now
        try await store.saveSchedule(
            schedule, expectedStatus: .pendingConfirmation, stepUpdates: [], newSteps: [], audit: audit(schedule, actor: actor, action: "schedule.confirmed"))
        return try await get(id: id, merchant: merchant, now: now)
    }

    /// `active` or `past_due` → `paused`: nothing is charged while paused.
    public func pause(id: String, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        var schedule = try await existing(id, merchant: merchant)
        let previous = schedule.status
        guard previous == .active || previous == .pastDue else { throw ScheduleError.wrongStatus(current: previous, operation: "pause") }
        schedule.status = .paused
        schedule.pausedAt = now
        schedule.updatedAt = now
        try await store.saveSchedule(schedule, expectedStatus: previous, stepUpdates: [], newSteps: [], audit: audit(schedule, actor: actor, action: "schedule.paused"))
        return try await get(id: id, merchant: merchant, now: now)
    }

    /// `paused` → `active`. Steps that fell due while paused are skipped, not charged late, unless `catchUp`.
    public func resume(id: String, catchUp: Bool, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        var schedule = try await existing(id, merchant: merchant)
        guard schedule.status == .paused else { throw ScheduleError.wrongStatus(current: schedule.status, operation: "resume") }
        let steps = try await store.steps(scheduleID: id)
        let missed = catchUp ? [] : steps.filter { $0.status == .scheduled && $0.dueAt <= now }
        schedule.status = .active
        schedule.pausedAt = nil
        schedule.updatedAt = now
        let remaining = steps.filter { !$0.status.isSettled && !missed.map(\.id).contains($0.id) }
        if remaining.isEmpty && isFullyMaterialized(schedule) { schedule.status = .completed }
        try await store.saveSchedule(
            schedule, expectedStatus: .paused, stepUpdates: missed.map { StepUpdate(stepID: $0.id, expectedStatus: $0.status, status: .skipped) }, newSteps: [],
            audit: audit(schedule, actor: actor, action: "schedule.resumed",
                         details: ["catchUp": String(catchUp), "skippedSteps": String(missed.count)]))
        return try await get(id: id, merchant: merchant, now: now)
    }

    /// Any open status → `cancelled`; steps not yet charged are cancelled.
    public func cancel(id: String, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        let schedule = try await existing(id, merchant: merchant)
        guard schedule.status.isOpen else { throw ScheduleError.wrongStatus(current: schedule.status, operation: "cancel") }
        try await cancel(schedule, actor: actor, now: now)
        return try await get(id: id, merchant: merchant, now: now)
    }

    /// Cancels every open schedule of a merchant (off-boarding: nothing of it may be charged again),
    /// each as ``cancel(id:merchant:actor:now:)`` does, with its audit event.
    /// - Returns: how many were cancelled.
    /// - Throws: ``ScheduleError/stepChanged(stepID:)`` when a charge run holds one of the steps
    ///   (run it again once the run has ended); the schedules cancelled before stay cancelled.
    public func cancelAll(merchant: Merchant, actor: String, now: Date = Date()) async throws -> Int {
        var cancelled = 0
        var after: Int64?
        while true {
            let page = try await store.schedules(merchantID: merchant.id, status: nil, afterSequence: after, limit: 500)
            guard let last = page.last else { return cancelled }
            for schedule in page where schedule.status.isOpen {
                try await cancel(schedule, actor: actor, now: now)
                cancelled += 1
            }
            after = last.sequence
        }
    }

    private func cancel(_ schedule: Schedule, actor: String, now: Date) async throws {
        var schedule = schedule
        let previous = schedule.status
        let open = try await store.steps(scheduleID: schedule.id).filter { StepStatus.cancelledWithSchedule.contains($0.status) }
        schedule.status = .cancelled
        schedule.updatedAt = now
        try await store.saveSchedule(
            schedule, expectedStatus: previous, stepUpdates: open.map { StepUpdate(stepID: $0.id, expectedStatus: $0.status, status: .cancelled) }, newSteps: [],
            audit: audit(schedule, actor: actor, action: "schedule.cancelled", details: ["cancelledSteps": String(open.count)]))
    }

    /// Changes amount, card, receipt contacts or description for future steps only.
    public func change(id: String, _ change: ScheduleChange, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        var schedule = try await existing(id, merchant: merchant)
        let previous = schedule.status
        guard previous.isOpen else { throw ScheduleError.wrongStatus(current: previous, operation: "change") }
        let steps = try await store.steps(scheduleID: id)
        let future = steps.filter { $0.status == .scheduled && $0.dueAt > now }
        // A change re-binds the schedule (and re-priced steps): rows altered behind the vault's
        // back are refused first, so re-binding never makes an insider's edit look genuine.
        guard await binding.isIntact(schedule) else { throw ScheduleError.integrityFailed(scheduleID: id) }
        var updates: [StepUpdate] = []
        var changed: [String] = []
        if let amount = change.amount {
            try Self.checkAmount(amount)
            schedule.amount = amount
            for step in future {
                guard await binding.isIntact(step, merchantID: merchant.id) else { throw ScheduleError.integrityFailed(scheduleID: id) }
                var repriced = step
                repriced.amount = amount
                updates.append(StepUpdate(
                    stepID: step.id, expectedStatus: step.status, amount: amount,
                    binding: try await binding.bound(repriced, merchantID: merchant.id).binding))
            }
            changed.append("amount")
        }
        if change.secureCardReference != nil || change.merchantReference != nil {
            let card = try await liveCard(secureCardReference: change.secureCardReference, merchantReference: change.merchantReference, merchant: merchant)
            if let next = future.first { try Self.checkExpiry(card, firstDate: next.date) }
            schedule.secureCardReference = card.reference
            changed.append("secureCardReference")
        }
        switch change.receiptEmail {
        case .absent: break
        case .clear: schedule.receiptEmail = nil; changed.append("receiptEmail")
        case .set(let email):
            try checkEmailReceipt(email)
            schedule.receiptEmail = email
            changed.append("receiptEmail")
        }
        switch change.receiptPhone {
        case .absent: break
        case .clear: schedule.receiptPhone = nil; changed.append("receiptPhone")
        case .set(let phone): try Self.checkContacts(email: nil, phone: phone); schedule.receiptPhone = phone; changed.append("receiptPhone")
        }
        switch change.description {
        case .absent: break
        case .clear: schedule.description = nil; changed.append("description")
        case .set(let text): try Self.checkText(text, field: "description", max: 255); schedule.description = text; changed.append("description")
        }
        if changed.contains("secureCardReference"), previous != .pendingConfirmation {
            // A confirmed schedule moved to another card: that card's first use, as on confirmation.
            try await firstUse?.ensureFirstUse(secureCardReference: schedule.secureCardReference, merchant: merchant, actor: actor)
        }
        schedule.updatedAt = now
        if change.receiptEmail != .absent || change.receiptPhone != .absent { schedule = try await sealed(schedule) }
        schedule = try await binding.bound(schedule)
        try await store.saveSchedule(
            schedule, expectedStatus: previous, stepUpdates: updates, newSteps: [],
            audit: audit(schedule, actor: actor, action: "schedule.changed",
                         details: ["changed": changed.joined(separator: ","), "futureSteps": String(future.count)]))
        return try await get(id: id, merchant: merchant, now: now)
    }

    /// Skips one future step.
    public func skip(id: String, stepID: String, merchant: Merchant, actor: String, now: Date = Date()) async throws -> ScheduleView {
        var schedule = try await existing(id, merchant: merchant)
        let previous = schedule.status
        guard previous.isOpen else { throw ScheduleError.wrongStatus(current: previous, operation: "skip") }
        let steps = try await store.steps(scheduleID: id)
        guard let step = steps.first(where: { $0.id == stepID }) else { throw ScheduleError.notFound("step") }
        guard step.status == .scheduled, step.dueAt > now else { throw ScheduleError.stepNotSkippable(status: step.status) }
        schedule.updatedAt = now
        if steps.allSatisfy({ $0.id == stepID || $0.status.isSettled }) && isFullyMaterialized(schedule) && previous != .pendingConfirmation {
            schedule.status = .completed
        }
        try await store.saveSchedule(
            schedule, expectedStatus: previous, stepUpdates: [StepUpdate(stepID: stepID, expectedStatus: step.status, status: .skipped)], newSteps: [],
            audit: audit(schedule, actor: actor, action: "schedule.step_skipped", details: ["step": stepID, "sequence": String(step.sequence)]))
        return try await get(id: id, merchant: merchant, now: now)
    }

    // MARK: - Expansion

    private func expand(_ request: NewSchedule, merchant: Merchant, now: Date, id: String) async throws -> ScheduleView {
        let card = try await liveCard(secureCardReference: request.secureCardReference, merchantReference: request.merchantReference, merchant: merchant)
        guard let amount = request.amount else { throw ScheduleError.invalid(field: "amount", rule: "required", message: "amount is required (minor units).") }
        try Self.checkAmount(amount)
        guard let code = request.currency else { throw ScheduleError.invalid(field: "currency", rule: "required", message: "currency is required.") }
        let currency: Currency
        do {
            currency = try Currency(code: code)
        } catch {
            throw ScheduleError.invalid(field: "currency", rule: "unknown_currency", message: "currency must be a known ISO 4217 code.")
        }
        if let refusal = GatewayPreChecks.forGateway(named: merchant.gateway.name)?.refusal(currency: currency) {
            throw ScheduleError.invalid(field: "currency", rule: refusal.code, message: refusal.message)
        }
        try Self.checkContacts(email: request.receiptEmail, phone: request.receiptPhone)
        if let email = request.receiptEmail { try checkEmailReceipt(email) }
        if let description = request.description { try Self.checkText(description, field: "description", max: 255) }
        if let externalID = request.externalId { try Self.checkText(externalID, field: "externalId", max: 64) }
        let rules = PlanRules(
            defaultTimeZone: merchant.zone, defaultTime: settings.defaultTime, maxCount: settings.maxStepCount,
            defaultTimeZoneName: merchant.zoneName)
        let plan = try Plan(validating: request.plan, rules: rules)
        let today = CivilDate.today(in: plan.timeZone, now: now)
        let horizon = today.adding(days: settings.horizonDays)
        let planned = plan.steps(horizon: horizon, limit: plan.end == .never ? settings.horizonDays * 2 + 10 : settings.maxStepCount)
        guard let first = planned.first else {
            throw ScheduleError.invalid(field: "startDate", rule: "no_steps", message: "The plan produces no steps.")
        }
        try Self.checkExpiry(card, firstDate: first.date)
        var warnings: [String] = []
        if let last = planned.last, card.expiry.isExpired(on: last.date) || plan.end == .never {
            if card.expiry.isExpired(on: last.date) || plan.end == .never && card.expiry.isExpired(on: horizon) {
                warnings.append("card_expires_before_last_step: the card expires \(card.expiry.mmyy) (MMYY), before the plan's last step")
            }
        }
        var stored = request.plan
        stored.timeZone = rules.timeZoneName(requested: request.plan.timeZone)
        stored.hour = plan.time.hour
        stored.minute = plan.time.minute
        let schedule = Schedule(
            id: id, merchantID: merchant.id, secureCardReference: card.reference, status: .pendingConfirmation, plan: stored, amount: amount,
            currency: currency, description: request.description, externalID: request.externalId, receiptEmail: request.receiptEmail,
            receiptPhone: request.receiptPhone, materializedThrough: plan.end == .never ? horizon : nil, createdAt: now, updatedAt: now,
            confirmedAt: nil, expiresAt: now.addingTimeInterval(settings.confirmationTimeout), pausedAt: nil, sequence: 0)
        let steps = planned.map { step in
            ScheduleStep(
                id: id.isEmpty ? "" : OpaqueToken.make(prefix: "stp_", randomBits: 100), scheduleID: id, sequence: step.sequence, date: step.date,
                dueAt: step.dueAt, amount: amount, currency: currency, status: .scheduled, attempts: 0, nextAttemptAt: nil)
        }
        return ScheduleView(schedule: schedule, steps: steps, warnings: warnings)
    }

    private func liveCard(secureCardReference: String?, merchantReference: String?, merchant: Merchant) async throws -> SecureCardRow {
        let row: SecureCardRow?
        let field: String
        if let reference = secureCardReference {
            field = "secureCardReference"
            row = try await store.secureCard(merchantID: merchant.id, reference: reference)
        } else if let reference = merchantReference {
            field = "merchantReference"
            row = try await store.secureCard(merchantID: merchant.id, merchantReference: reference)
        } else {
            throw ScheduleError.invalid(field: "secureCardReference", rule: "required", message: "secureCardReference or merchantReference is required.")
        }
        guard let card = row else { throw ScheduleError.invalid(field: field, rule: "not_found", message: "No live secure card with that reference.") }
        guard card.status == .active, card.sealedCard != nil else {
            throw ScheduleError.invalid(field: field, rule: "card_deleted", message: "The secure card was deleted.")
        }
        return card
    }

    private func existing(_ id: String, merchant: Merchant) async throws -> Schedule {
        guard let schedule = try await store.schedule(merchantID: merchant.id, id: id) else { throw ScheduleError.notFound("schedule") }
        return try await opened(schedule)
    }

    // MARK: - Sealed contacts

    /// The receipt contacts sealed: what is stored (`sealedContacts`); nil when there are none.
    private func sealed(_ schedule: Schedule) async throws -> Schedule {
        var schedule = schedule
        let contacts = SealedContacts(receiptEmail: schedule.receiptEmail, receiptPhone: schedule.receiptPhone)
        schedule.sealedContacts = contacts.isEmpty ? nil : try await keyring.sealRecord(
            try JSONEncoder().encode(contacts), merchantID: schedule.merchantID, kind: Self.contactsKind, recordID: schedule.id)
        return schedule
    }

    /// The receipt contacts opened from `sealedContacts` (rows written before sealing keep their
    /// clear values until `sealLegacyContacts` runs).
    private func opened(_ schedule: Schedule) async throws -> Schedule {
        try await ScheduleContactOpener(keyring: keyring).opened(schedule)
    }

    /// Re-encrypts a merchant's sealed receipt contacts under its newest data key (`keys rotate
    /// --data`), so no schedule needs a superseded data key; safe while serving.
    /// - Returns: how many schedules were resealed.
    public func resealContacts(merchantID: String, batchSize: Int = 500) async throws -> Int {
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        var total = 0
        while true {
            let batch = try await store.schedulesToReseal(merchantID: merchantID, belowKeyVersion: newest, limit: batchSize)
            if batch.isEmpty { return total }
            var changed = 0
            for (id, sealed) in batch {
                let plain = try await keyring.openRecord(sealed, merchantID: merchantID, kind: Self.contactsKind, recordID: id)
                let resealed = try await keyring.sealRecord(plain, merchantID: merchantID, kind: Self.contactsKind, recordID: id)
                if try await store.resealScheduleContacts(id: id, old: sealed, new: resealed) { changed += 1 }
            }
            total += changed
            if changed == 0 { return total }
        }
    }

    /// Seals the receipt contacts of schedules written before they were sealed and empties the clear
    /// columns (run at start-up, before serving).
    /// - Returns: how many schedules were sealed.
    public func sealLegacyContacts(batchSize: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let batch = try await store.schedulesWithClearContacts(limit: batchSize)
            if batch.isEmpty { return total }
            for schedule in batch {
                do {
                    try await store.sealScheduleContacts(id: schedule.id, sealedContacts: try await sealed(schedule).sealedContacts)
                } catch KeyringError.keyUnavailable {
                    try await store.sealScheduleContacts(id: schedule.id, sealedContacts: nil)  // off-boarded: nothing may stay readable
                }
                total += 1
            }
        }
    }

    private func isFullyMaterialized(_ schedule: Schedule) -> Bool {
        schedule.plan.endType != "never"
    }

    private func audit(_ schedule: Schedule, actor: String, action: String, details: [String: String] = [:]) -> AuditEntry {
        AuditEntry(merchantID: schedule.merchantID, actor: actor, action: action, objectType: "schedule", objectID: schedule.id, details: details)
    }

    // MARK: - Rules

    /// Largest amount per step, in minor units.
    public static let maximumAmount: Int64 = MinorUnits.maximum

    static func checkAmount(_ amount: Int64) throws {
        guard amount > 0, amount <= maximumAmount else {
            throw ScheduleError.invalid(field: "amount", rule: "out_of_range", message: "amount must be between 1 and \(maximumAmount) minor units.")
        }
    }

    static func checkContacts(email: String?, phone: String?) throws {
        do {
            try Customer(email: email, mobileNumber: phone).validate()
        } catch {
            let field = error.field == "customer.email" ? "receiptEmail" : "receiptPhone"
            throw ScheduleError.invalid(field: field, rule: error.code, message: "\(field) is not valid.")
        }
    }

    /// Refuses a receipt address the vault could not write to: invalid (422 with the address
    /// rule), not one a message header can carry, or with no usable mail program and sender
    /// configured (``ReceiptsNotConfigured``).
    func checkEmailReceipt(_ email: String) throws {
        try Self.checkContacts(email: email, phone: nil)
        try emailReceipts.check(email, field: "receiptEmail")
    }

    static func checkText(_ text: String, field: String, max: Int) throws {
        guard text.count <= max else { throw ScheduleError.invalid(field: field, rule: "too_long", message: "\(field) is longer than \(max) characters.") }
        do {
            try CardNumberShape.refuse(text, field: field)
        } catch {
            throw ScheduleError.invalid(field: field, rule: error.code, message: error.message)
        }
    }

    static func checkExpiry(_ card: SecureCardRow, firstDate: CivilDate) throws {
        if card.expiry.isExpired(on: firstDate) {
            throw ScheduleError.invalid(
                field: "secureCardReference", rule: "card_expires_before_first_step",
                message: "The card expires \(card.expiry.mmyy) (MMYY), before the first step on \(firstDate.iso).")
        }
    }
}

/// The receipt contacts of a schedule, as sealed.
struct SealedContacts: Codable, Equatable {
    var receiptEmail: String?
    var receiptPhone: String?

    var isEmpty: Bool { receiptEmail == nil && receiptPhone == nil }
}
