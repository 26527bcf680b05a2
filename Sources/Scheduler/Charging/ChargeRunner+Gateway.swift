import Foundation
import Logging
import Payments
import Vault

extension ChargeRunner {
    /// A new attempt: declined locally when the card is gone or expires before the due date,
    /// otherwise sent, with in-run retries for gateway errors (same idempotency key).
    /// `keptOriginal` is the card's first-payment id read with the batch; without it the id is
    /// read now.
    func charge(
        _ transaction: Transaction, card: ChargeCard?, due: DueStep, merchant: Merchant, keptOriginal: String?,
        options: Options, context: RunContext
    ) async -> GatewayResult {
        guard let card else {
            return GatewayResult(outcome: .declined(code: "card_unavailable", category: .hard), responseText: "The secure card is deleted or purged.")
        }
        if card.expiry.isExpired(on: due.step.date) {
            return GatewayResult(outcome: .declined(code: "expired_card", category: .hard), responseText: "Declined by the vault: the card expires before the due date.")
        }
        guard let adapter = await context.adapter(for: merchant, gateways: gateways) else {
            return .error(Self.configurationErrorCode, retryable: true)
        }
        if await context.isStopped(merchant.id) {
            // Its gateway was unreachable too many times in a row: this attempt is not sent (it is
            // settled by a look-up in a later run, which finds nothing and sends it then).
            return .error(Self.unreachableCode, retryable: true, text: "Not sent: the gateway was unreachable for the merchant's previous charges.")
        }
        var original = keptOriginal
        if original == nil { original = await originalNetworkTransactionID(due: due, merchant: merchant) }
        let request = ChargeRequest(
            idempotencyKey: transaction.idempotencyKey, reference: transaction.orderReference,
            amount: Money(minorUnits: transaction.amount, currency: transaction.currency),
            card: PaymentCard(pan: card.pan, expiry: card.expiry, holderName: card.holderName, cvv: nil, postalCode: nil),
            description: transaction.description, storedCredential: .recurring(originalNetworkTransactionID: original))
        let result = await sendSale(request, adapter: adapter, transaction: transaction, options: options)
        if await context.noteReachability(result, merchantID: merchant.id, limit: options.unreachableLimit) {
            logger.warning(
                "gateway unreachable: the run stops charging this merchant; its remaining steps stay due for the next run",
                metadata: ["merchant": "\(merchant.id)", "gateway": "\(merchant.gateway.name)", "consecutive": "\(options.unreachableLimit)"])
        }
        if original == nil { await keepFirstPayment(result, of: transaction, due: due, merchant: merchant) }
        return result
    }

    /// Keeps the network transaction id of an approved first payment of the series, sent now or
    /// found by a look-up after its answer was lost: later charges refer to it (an id kept
    /// meanwhile stays).
    func keepFirstPayment(_ result: GatewayResult, of transaction: Transaction, due: DueStep, merchant: Merchant) async {
        guard result.isApproved, let network = result.networkTransactionID else { return }
        _ = try? await storedCredentials?.record(
            network, secureCardReference: due.schedule.secureCardReference, merchantID: merchant.id, gateway: merchant.gateway.name,
            transactionID: transaction.id, replacing: false)
    }

    /// The network transaction id of the card's first use with the merchant's gateway, if kept.
    private func originalNetworkTransactionID(due: DueStep, merchant: Merchant) async -> String? {
        guard let storedCredentials else { return nil }
        do {
            return try await storedCredentials.originalNetworkTransactionID(
                secureCardReference: due.schedule.secureCardReference, merchantID: merchant.id, gateway: merchant.gateway.name)
        } catch {
            logger.warning("stored credential unreadable; charging as the first payment of the series",
                           metadata: ["schedule": "\(due.schedule.id)", "error": "\(error)"])
            return nil
        }
    }

    /// Sends the sale, retrying retryable errors with the same key (bounded), resolving in doubt by lookup.
    private func sendSale(_ request: ChargeRequest, adapter: any GatewayAdapter, transaction: Transaction, options: Options) async -> GatewayResult {
        var result = await adapter.sale(request)
        var attempt = 0
        while attempt < options.gatewayRetries {
            switch result.outcome {
            case .error(_, retryable: true):
                break
            case .inDoubt:
                // Never re-send an in-doubt sale in the same run: the gateway may still be
                // processing it. A later run settles it by lookup after the grace period.
                let query = GatewayLookupQuery(
                    reference: transaction.orderReference, gatewayTransactionID: result.transactionID ?? transaction.gatewayTransactionID,
                    since: transaction.createdAt)
                if case .found(let found) = await adapter.lookup(query) {
                    return found
                }
                return result
            default:
                return result
            }
            // A rate limit or an unreachable gateway: nothing was processed. Wait (the backoff, or
            // the gateway's Retry-After when longer) and send again with the same key, a bounded
            // number of times; a Retry-After beyond the run's patience leaves the step for the next run.
            var wait = options.retryBackoff * (1 << attempt)
            if let asked = result.retryAfter {
                guard asked <= options.maximumRetryAfter else { return result }
                wait = max(wait, asked)
            }
            await options.sleep(wait)
            if result.errorCode == "http_503",
               case .found(let found) = await adapter.lookup(GatewayLookupQuery(
                   reference: transaction.orderReference, gatewayTransactionID: nil, since: transaction.createdAt)) {
                // A 503 is taken as "not processed"; a lookup first makes sure before the same sale goes again.
                return found
            }
            attempt += 1
            result = await adapter.sale(request)
        }
        return result
    }

    /// An open attempt: look it up over the whole window since it was first sent; re-send with
    /// the same key only when the gateway proves it has no record of it (`notFound`) after the
    /// grace period. When absence cannot be proven (the look-up failed, was partial, or could not
    /// cover the window), an attempt that may have been charged (in doubt, or recorded and never
    /// answered) is never re-sent: after the grace period it goes to review (`needs_review`).
    func settle(_ open: Transaction, due: DueStep, merchant: Merchant, options: Options, context: RunContext) async -> SettledAttempt {
        if open.isPermanentError {
            return SettledAttempt(result: GatewayResult(
                outcome: .declined(code: open.declineCode ?? open.errorCode ?? "gateway_error", category: .error),
                transactionID: open.gatewayTransactionID, responseCode: open.responseCode, responseText: open.responseText))
        }
        if [.approved, .declined].contains(open.status) {
            return SettledAttempt(result: GatewayResult(
                outcome: open.status == .approved ? .approved : .declined(code: open.declineCode ?? "card_declined", category: DeclineCategory(rawValue: open.declineCategory ?? "hard") ?? .hard),
                transactionID: open.gatewayTransactionID, authCode: open.authCode, responseCode: open.responseCode, responseText: open.responseText))
        }
        guard let adapter = await context.adapter(for: merchant, gateways: gateways) else {
            return SettledAttempt(result: .error(Self.configurationErrorCode, retryable: true))
        }
        let query = GatewayLookupQuery(reference: open.orderReference, gatewayTransactionID: open.gatewayTransactionID, since: open.createdAt)
        let lookup = await adapter.lookup(query)
        if case .unavailable = lookup, open.status == .error, open.errorCode == "gateway_redirect" {
            // A sale the endpoint redirected was never processed: while a look-up cannot be made it
            // stays that error (not charged), rather than becoming in doubt.
            return SettledAttempt(result: .error("gateway_redirect", retryable: false, text: "The gateway endpoint still cannot be reached without a redirect."))
        }
        if case .unavailable = lookup, open.status == .error, open.errorCode == Self.unreachableCode {
            // A sale that reached no gateway (every try refused or never connected) was not sent:
            // while the gateway stays unreachable it stays that error, never in doubt, so a
            // gateway down for several nights does not send provably unsent charges to review.
            return SettledAttempt(result: .error(Self.unreachableCode, retryable: true, text: "Not sent: the gateway is still unreachable."))
        }
        switch options.inDoubtPolicy.verdict(lookup, for: open, now: Date()) {
        case .settled(let result):
            await keepFirstPayment(result, of: open, due: due, merchant: merchant)
            return SettledAttempt(result: result)
        case .stillInDoubt(let result):
            return SettledAttempt(result: result)
        case .needsReview(let reason):
            return SettledAttempt(result: .inDoubt(reason), needsReview: true)
        case .provenAbsent:
            let card = try? await cards.cardForCharge(reference: due.schedule.secureCardReference, merchantID: merchant.id)
            return SettledAttempt(result: await charge(open, card: card, due: due, merchant: merchant, keptOriginal: nil, options: options, context: context))
        }
    }

    func stepOutcome(_ transaction: Transaction, due: DueStep) -> (stepOutcome: StepOutcome, summary: ChargeOutcome) {
        let attempt = transaction.attempt ?? 1
        switch transaction.status {
        case .approved:
            return (StepOutcome(transaction: transaction, stepStatus: .approved), .approved)
        case .declined where transaction.declineCategory == "soft":
            let previous = due.step.nextAttemptAt ?? due.step.dueAt
            if let next = policy.nextAttempt(after: attempt, previousDueAt: previous) {
                return (StepOutcome(transaction: transaction, stepStatus: .retryPending, nextAttemptAt: next), .retryScheduled)
            }
            return (StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy), .failed)
        case .error where transaction.isPermanentError:
            // The gateway refused the request itself: settled as failed, never sent again; the
            // schedule follows the past-due policy like after a hard decline.
            return (StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy), .failed)
        case .declined:
            let summary: ChargeOutcome = transaction.declineCode == "expired_card" && transaction.gatewayTransactionID == nil ? .expiredCard : .failed
            return (StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy), summary)
        default:
            return (StepOutcome(transaction: transaction, stepStatus: .processing), .unsettled)
        }
    }
}
