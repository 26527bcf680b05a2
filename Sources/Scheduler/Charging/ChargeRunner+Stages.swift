import Foundation
import Logging
import Payments
import Vault

extension ChargeRunner {
    /// The card of a new attempt, opened for its gateway call.
    typealias ChargeCard = (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?, merchantReference: String)

    /// A claimed step whose attempt is on disk (or whose open attempt is to be settled), waiting for a gateway slot.
    struct ReadyCharge: Sendable {
        var due: DueStep
        var merchant: Merchant
        var transaction: Transaction
        /// Settle the open attempt (look it up) instead of sending a new one.
        var settlesOpenAttempt: Bool
        /// A new attempt's card; nil when it is deleted or purged (declined locally).
        var card: ChargeCard?
        /// The network transaction id of the card's first payment, read with the batch; nil when
        /// none was kept then (read again before the call: an earlier charge of the run may keep one).
        var originalNetworkTransactionID: String?
    }

    /// A gateway's answer, applied to the attempt's transaction, waiting for its outcome to be written.
    struct AnsweredCharge: Sendable {
        var due: DueStep
        var merchant: Merchant
        var transaction: Transaction
        /// The attempt may have been charged and the gateway cannot prove either way: the step
        /// goes to `needs_review`.
        var needsReview = false
        /// The card's holder name, when the card was opened for this attempt (nil when an open
        /// attempt is settled by a look-up).
        var holderName: String?
    }

    /// How settling (or sending) an attempt ended.
    struct SettledAttempt: Sendable {
        var result: GatewayResult
        /// Absence could not be proven for an attempt that may have been charged.
        var needsReview = false
    }

    /// What claiming a batch gave.
    struct ClaimedBatch: Sendable {
        /// Steps claimed (0: nothing is due any more).
        var claimed: Int
        /// New attempts, to be written before their gateway calls.
        var attempts: [ReadyCharge] = []
        /// Open attempts to settle: ready for their look-up.
        var settling: [ReadyCharge] = []
        /// Steps that cannot be charged in this run (merchant unknown).
        var held: [HeldStep] = []
        /// Steps whose rows this build cannot read: not charged, counted, their leases kept until the run ends.
        var unreadable: [UnreadableStep] = []
        /// Steps whose schedule's or own row failed its integrity check: sent to review, never charged.
        var refused: [StepResult] = []
    }

    /// What writing a group of attempts gave.
    struct RecordedAttempts: Sendable {
        /// Attempts on disk, ready for their gateway calls.
        var ready: [ReadyCharge] = []
        /// Steps whose attempt could not be written.
        var held: [HeldStep] = []
    }

    /// Claims up to `limit` due steps and prepares their attempts (merchant, card, transaction);
    /// the attempts are written later, in groups, shortly before their gateway calls.
    func claimBatch(_ run: RunState, limit: Int) async throws -> ClaimedBatch {
        let options = run.options
        let now = Date()
        let claimed = try await store.claimDueSteps(
            asOf: options.asOf, merchantID: options.merchantID, owner: run.owner, now: now, leaseUntil: now.addingTimeInterval(options.lease),
            limit: limit, isOwnerGone: RunnerIdentity.isGone)
        var batch = ClaimedBatch(claimed: claimed.leased, unreadable: claimed.unreadable)
        for unreadable in claimed.unreadable {
            logger.error(
                "a claimed step's stored rows cannot be read by this build; it is not charged",
                metadata: ["step": "\(unreadable.stepID)", "error": "\(unreadable.error)"])
        }
        var knownMerchants: [String: Merchant] = [:]
        var newCharges: [(due: DueStep, merchant: Merchant)] = []
        var checkedSchedules: [String: Bool] = [:]
        var refusals: [(stepID: String, audit: AuditEntry)] = []
        var refused: [(step: ScheduleStep, merchantID: String)] = []
        for due in claimed {
            // Before anything else, and before any gateway call: rows altered behind the vault's
            // back (another card, another amount, another merchant) are never charged.
            let scheduleIntact: Bool
            if let known = checkedSchedules[due.schedule.id] {
                scheduleIntact = known
            } else {
                scheduleIntact = await binding.isIntact(due.schedule)
                checkedSchedules[due.schedule.id] = scheduleIntact
            }
            var refusal = await binding.refusal(due.schedule, step: due.step, scheduleIntact: scheduleIntact)
            if refusal == nil, let open = due.openAttempt, await !transactionBinding.isIntact(open) {
                // Settling it would look up, or send again, the altered row's amount and card.
                refusal = Self.openAttemptAltered
            }
            if let reason = refusal {
                logger.error(
                    "a claimed step failed its integrity check; it is sent to review and not charged",
                    metadata: ["step": "\(due.step.id)", "schedule": "\(due.schedule.id)", "reason": "\(reason)"])
                refusals.append((due.step.id, AuditEntry(
                    merchantID: due.schedule.merchantID, actor: run.actor, action: Self.integrityFailedAction, objectType: "schedule_step",
                    objectID: due.step.id, details: ["schedule": due.schedule.id, "reason": reason, "stepStatus": StepStatus.needsReview.rawValue])))
                refused.append((due.step, due.schedule.merchantID))
                continue
            }
            let merchant: Merchant
            do {
                if let known = knownMerchants[due.schedule.merchantID] {
                    merchant = known
                } else if let found = try await run.context.merchant(due.schedule.merchantID, store: merchants) {
                    merchant = found
                    knownMerchants[found.id] = found
                } else {
                    batch.held.append(HeldStep(stepID: due.step.id, result: .unsettled(due.step, code: "merchant_not_found")))
                    continue
                }
            } catch {
                batch.held.append(held(due.step, error))
                continue
            }
            if let open = due.openAttempt {
                batch.settling.append(ReadyCharge(due: due, merchant: merchant, transaction: open, settlesOpenAttempt: true))
                continue
            }
            if await run.context.isStopped(merchant.id) {
                // The merchant's gateway was unreachable too many times in a row in this run:
                // nothing is written or sent, the step stays due for the next run.
                batch.held.append(HeldStep(stepID: due.step.id, result: StepResult(
                    outcome: .unsettled, amount: due.step.amount, currency: due.step.currency.code, code: Self.unreachableCode,
                    merchantID: merchant.id, gateway: merchant.gateway.name)))
                continue
            }
            if await run.context.configurationProblem(of: merchant, gateways: gateways) != nil {
                // Nothing can be sent: no attempt is written and the step stays due, untouched
                // (its lease is released when the run ends), for the first run after the fix.
                batch.held.append(HeldStep(stepID: due.step.id, result: StepResult(
                    outcome: .configurationError, amount: due.step.amount, currency: due.step.currency.code,
                    code: Self.configurationErrorCode, merchantID: merchant.id, gateway: merchant.gateway.name)))
                continue
            }
            newCharges.append((due, merchant))
        }
        // The batch's cards are read together, each card once however many of its steps are due.
        let opened = await openCards(of: newCharges)
        for (due, merchant) in newCharges {
            let card = opened[merchant.id]?[due.schedule.secureCardReference]
            let transaction = newAttempt(due, merchant: merchant, card: card)
            batch.attempts.append(ReadyCharge(due: due, merchant: merchant, transaction: transaction, settlesOpenAttempt: false, card: card))
        }
        await readStoredCredentials(of: &batch.attempts)
        do {
            try await store.refuseSteps(refusals, owner: run.owner, now: Date())
            batch.refused = refused.map { step, merchantID in
                StepResult(
                    outcome: .needsReview, amount: step.amount, currency: step.currency.code, code: Self.integrityFailedCode, merchantID: merchantID)
            }
        } catch {
            // Not written: the steps stay leased until the run ends and are checked again by the next run.
            batch.held += refused.map { held($0.step, error) }
        }
        return batch
    }

    /// Opens the cards of a batch's new attempts, by merchant and card reference: one read per
    /// merchant. A card that is gone, purged or does not open is absent (the attempt is declined
    /// locally); when the read fails, each card is read on its own, as before batches were read.
    private func openCards(of charges: [(due: DueStep, merchant: Merchant)]) async -> [String: [String: ChargeCard]] {
        var referencesByMerchant: [String: Set<String>] = [:]
        for (due, merchant) in charges {
            referencesByMerchant[merchant.id, default: []].insert(due.schedule.secureCardReference)
        }
        var opened: [String: [String: ChargeCard]] = [:]
        for (merchantID, references) in referencesByMerchant {
            if let read = try? await cards.cardsForCharge(references: references.sorted(), merchantID: merchantID) {
                opened[merchantID] = read
                continue
            }
            var one: [String: ChargeCard] = [:]
            for reference in references.sorted() {
                one[reference] = try? await cards.cardForCharge(reference: reference, merchantID: merchantID)
            }
            opened[merchantID] = one
        }
        return opened
    }

    /// Reads the kept first-payment ids of the batch's cards, one read per merchant and gateway
    /// instead of one per charge. A read that fails leaves them to be read before each call.
    private func readStoredCredentials(of attempts: inout [ReadyCharge]) async {
        guard let storedCredentials else { return }
        var cardsByMerchant: [String: (gateway: String, references: Set<String>)] = [:]
        for attempt in attempts where attempt.card != nil {
            let merchant = attempt.merchant
            cardsByMerchant[merchant.id, default: (merchant.gateway.name, [])].references.insert(attempt.due.schedule.secureCardReference)
        }
        var kept: [String: [String: String]] = [:]
        for (merchantID, cards) in cardsByMerchant {
            kept[merchantID] = try? await storedCredentials.originalNetworkTransactionIDs(
                secureCardReferences: cards.references.sorted(), merchantID: merchantID, gateway: cards.gateway)
        }
        for index in attempts.indices {
            let attempt = attempts[index]
            attempts[index].originalNetworkTransactionID = kept[attempt.merchant.id]?[attempt.due.schedule.secureCardReference]
        }
    }

    /// Why a step whose open attempt was altered in the database is refused.
    static let openAttemptAltered = "the step's open attempt (its transaction) is not as the vault wrote it"

    /// The code counted for a step refused because its rows failed their integrity check.
    static let integrityFailedCode = "integrity_failed"
    /// The audit action recording such a refusal, with the reason.
    static let integrityFailedAction = "charge.integrity_failed"

    /// Writes new attempts in one write (each on its own); none of their gateway calls has started.
    /// Their time is the time they are written: the in-doubt grace period counts from it.
    func recordAttempts(_ charges: [ReadyCharge], owner: String? = nil) async -> RecordedAttempts {
        let now = Date()
        var stamped: [ReadyCharge] = []
        for var charge in charges {
            charge.transaction.createdAt = now
            charge.transaction.updatedAt = now
            // A merchant whose keys were destroyed meanwhile gets an unbound row: nothing of its
            // can be refunded or captured anyway.
            charge.transaction = (try? await transactionBinding.bound(charge.transaction)) ?? charge.transaction
            stamped.append(charge)
        }
        var recorded = RecordedAttempts()
        do {
            let errors = try await store.recordAttempts(stamped.map { ChargeAttempt(transaction: $0.transaction, step: $0.due.step, leaseOwner: owner) })
            for (charge, error) in zip(stamped, errors) {
                if let error {
                    recorded.held.append(held(charge.due.step, error))
                } else {
                    recorded.ready.append(charge)
                }
            }
        } catch {
            recorded.held = stamped.map { held($0.due.step, error) }
        }
        return recorded
    }

    /// The transaction of a step's next attempt, with the idempotency key `<step id>-a<attempt>`.
    private func newAttempt(_ due: DueStep, merchant: Merchant, card: ChargeCard?) -> Transaction {
        let step = due.step
        let attempt = step.attempts + 1
        let now = Date()
        var transaction = Transaction(
            id: Transaction.makeID(at: now), merchantID: merchant.id, type: .sale, amount: step.amount, currency: step.currency,
            gateway: merchant.gateway.name, now: now, idempotencyKey: "\(step.id)-a\(attempt)",
            orderReference: Self.orderReference(stepID: step.id, attempt: attempt))
        transaction.secureCardReference = due.schedule.secureCardReference
        transaction.merchantReference = card?.merchantReference
        transaction.scheduleID = due.schedule.id
        transaction.stepID = step.id
        transaction.attempt = attempt
        transaction.description = due.schedule.description
        transaction.storedCredential = .subsequent
        transaction.maskedNumber = card?.pan.masked
        transaction.cardType = card?.pan.brand.rawValue
        return transaction
    }

    /// Sends a new attempt (or declines it locally), or settles an open one, and applies the answer.
    func call(_ charge: ReadyCharge, run: RunState) async -> AnsweredCharge {
        let settled = if charge.settlesOpenAttempt {
            await settle(charge.transaction, due: charge.due, merchant: charge.merchant, options: run.options, context: run.context)
        } else {
            SettledAttempt(result: await self.charge(
                charge.transaction, card: charge.card, due: charge.due, merchant: charge.merchant,
                keptOriginal: charge.originalNetworkTransactionID, options: run.options, context: run.context))
        }
        var transaction = charge.transaction
        transaction.apply(settled.result, now: Date())
        return AnsweredCharge(
            due: charge.due, merchant: charge.merchant, transaction: transaction, needsReview: settled.needsReview, holderName: charge.card?.holderName)
    }

    /// Writes a group of outcomes in one write; a step whose outcome could not be written is held.
    func record(_ answers: [AnsweredCharge], run: RunState) async -> [Result<StepResult, HeldError>] {
        var outcomes: [AttemptOutcome] = []
        var summaries: [ChargeOutcome] = []
        for answer in answers {
            // The outcome may bring the gateway's id: the row is bound again.
            let transaction = (try? await transactionBinding.bound(answer.transaction)) ?? answer.transaction
            let step = answer.due.step
            var (outcome, summary) = answer.needsReview
                ? (StepOutcome(transaction: transaction, stepStatus: .needsReview), ChargeOutcome.needsReview)
                : stepOutcome(transaction, due: answer.due)
            if summary == .unsettled, transaction.status == .error, transaction.errorCode == Self.configurationErrorCode {
                // An open attempt whose merchant's gateway cannot be used now: nothing was sent now (the
                // step stays as it was, settled by a look-up once the merchant is fixed); a failure to
                // fix, not a gateway answer in doubt.
                summary = .configurationError
            }
            outcome.holdBack = run.options.inDoubtGrace
            summaries.append(summary)
            outcomes.append(AttemptOutcome(
                outcome: outcome, step: step, schedule: answer.due.schedule,
                audit: AuditEntry(
                    merchantID: answer.merchant.id, actor: run.actor,
                    action: answer.needsReview ? "charge.needs_review" : "charge.\(transaction.status.rawValue)", objectType: "transaction",
                    objectID: transaction.id,
                    details: ["step": step.id, "attempt": String(transaction.attempt ?? 0), "schedule": answer.due.schedule.id,
                              "amount": String(transaction.amount), "currency": transaction.currency.code,
                              "stepStatus": outcome.stepStatus.rawValue]),
                leaseOwner: run.owner, parties: CallbackParties(holderName: await sealedHolderName(of: answer), merchantName: answer.merchant.name),
                receipt: await receiptRequest(for: answer), emailReceipt: await emailReceipt(for: answer, transaction: transaction)))
        }
        let written: [Result<RecordedOutcome, any Error>]
        do {
            written = try await store.recordOutcomes(outcomes)
        } catch {
            return answers.map { .failure(HeldError(held: held($0.due.step, error))) }
        }
        return zip(answers, zip(summaries, written)).map { answer, outcome in
            let step = answer.due.step
            switch outcome.1 {
            case .success(let recorded):
                let transaction = answer.transaction
                return .success(StepResult(
                    outcome: outcome.0, amount: step.amount, currency: step.currency.code, recorded: recorded,
                    code: outcome.0 == .approved ? nil : transaction.declineCode ?? transaction.errorCode, merchantID: answer.merchant.id,
                    gateway: answer.merchant.gateway.name, cardDeclined: transaction.status == .declined))
            case .failure(let error):
                return .failure(HeldError(held: held(step, error)))
            }
        }
    }

    /// Where an approved charge's text receipt goes: its schedule's receipt phone, opened from the
    /// sealed contacts; nil without a phone, an opener, or an approval. A phone that cannot be read
    /// is logged (by id) and the charge is recorded without a receipt.
    private func receiptRequest(for answer: AnsweredCharge) async -> ReceiptRequest? {
        guard answer.transaction.status == .approved, let contacts, answer.due.schedule.sealedContacts != nil || answer.due.schedule.receiptPhone != nil
        else { return nil }
        do {
            guard let phone = try await contacts.opened(answer.due.schedule).receiptPhone else { return nil }
            let sealedPhone = try await cards.webhookFields.seal(phone, merchantID: answer.merchant.id, recordID: answer.transaction.id)
            return ReceiptRequest(phone: sealedPhone, merchantName: answer.merchant.name, timeZone: answer.merchant.zone)
        } catch {
            logger.error("could not open a schedule's receipt contacts", metadata: ["schedule": "\(answer.due.schedule.id)"])
            return nil
        }
    }

    /// An approved charge's e-mail receipt to its schedule's receipt address (opened from the
    /// sealed contacts, sealed again for the outbox); nil without an address, an opener or an
    /// approval. An address that cannot be read is logged (by id) and the charge is recorded
    /// without a receipt.
    private func emailReceipt(for answer: AnsweredCharge, transaction: Transaction) async -> PendingReceipt? {
        guard let contacts else { return nil }
        do {
            return try await contacts.emailReceipt(of: transaction, schedule: answer.due.schedule, merchant: answer.merchant)
        } catch {
            logger.error("could not prepare a schedule's e-mail receipt", metadata: ["schedule": "\(answer.due.schedule.id)"])
            return nil
        }
    }

    /// The charged card's holder name sealed for the callback (``WebhookFieldSeal``); nil when the
    /// card has none, was not opened for this attempt, or the name cannot be sealed now.
    private func sealedHolderName(of answer: AnsweredCharge) async -> String? {
        guard let name = answer.holderName else { return nil }
        return try? await cards.webhookFields.seal(name, merchantID: answer.merchant.id, recordID: answer.transaction.id)
    }

    /// Logs why a step could not be recorded; it stays leased until the run ends, unsettled.
    private func held(_ step: ScheduleStep, _ error: any Error) -> HeldStep {
        logger.error("could not record a charge", metadata: ["step": "\(step.id)", "error": "\(error)"])
        return HeldStep(stepID: step.id, result: .unsettled(step, code: "outcome_not_written"))
    }

    /// The error code of a charge whose merchant's gateway adapter cannot be built.
    static let configurationErrorCode = "gateway_not_configured"

    /// The error code of a sale that reached no gateway (the adapters' answer when the connection
    /// was refused or never made): nothing was sent.
    static let unreachableCode = "gateway_unreachable"
}
