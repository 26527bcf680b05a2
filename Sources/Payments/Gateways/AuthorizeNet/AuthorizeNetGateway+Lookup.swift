import Foundation
import Vault

extension AuthorizeNetGateway {
    /// Longest settlement-date range of one `getSettledBatchListRequest`: the API reference says
    /// the range may not exceed 31 days.
    static let settledBatchRange: TimeInterval = 31 * 86_400
    /// How far back a search may reach (ours, not the gateway's): an attempt older than this is
    /// not searched for, and its absence is not proven (`window_not_covered`).
    static let maximumLookupWindow: TimeInterval = 190 * 86_400
    /// Slack before the attempt for clocks that disagree (ours and the gateway's).
    static let lookupClockSlack: TimeInterval = 3_600
    /// How far past now the last settlement date reaches: dates are sent to the second, and the
    /// gateway's clock may run ahead of ours, so a batch settled just now is still in range.
    static let settlementAhead: TimeInterval = 600
    /// Pages of 1,000 read from one list before the search gives up as incomplete
    /// (`lookup_incomplete`); the XSD's `Paging.offset` goes to 100,000.
    static let maximumLookupPages = 100

    /// Finds a charge sent within the duplicate window (8 hours): see ``lookup(_:)``.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await lookup(GatewayLookupQuery(
            reference: reference, gatewayTransactionID: gatewayTransactionID,
            since: Date().addingTimeInterval(-TimeInterval(AuthorizeNetRequests.duplicateWindowSeconds))))
    }

    /// Finds an operation over the whole window since ``GatewayLookupQuery/since``.
    ///
    /// A charge or a refund is found by the invoice number we sent with it (its own reference):
    /// by `getTransactionDetailsRequest` when its id is known, otherwise (or when that id is
    /// unknown to the gateway) in every unsettled transaction (`getUnsettledTransactionListRequest`,
    /// pages of 1,000 until the last) and in every batch settled since the attempt
    /// (`getSettledBatchListRequest` in ranges of at most 31 days, then `getTransactionListRequest`
    /// per batch, paged); then the match's details decide, by their `transactionStatus`. A refund
    /// found must refund the parent asked about.
    ///
    /// A capture or a void is found from the parent authorization's own details: Authorize.Net
    /// captures and voids a transaction in place (`priorAuthCaptureTransaction` and
    /// `voidTransaction` answer the parent's id), so the parent's current status says whether it
    /// happened (see ``followUpResult(_:of:)``).
    ///
    /// `notFound` only when every list was read to its end over the whole window, or the parent's
    /// current status proves the follow-up did not happen; a failed call, a list longer than
    /// ``maximumLookupPages`` or a window longer than ``maximumLookupWindow`` is `unavailable`
    /// (absence not proven). A batch that settled while the unsettled list was being read may
    /// have moved a match between the lists: the search is then made once more. Needs the
    /// Transaction Details API enabled for the merchant.
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        let parent: String?
        switch query.kind {
        case .charge:
            parent = nil
        case let .refund(parentTransactionID, _):
            parent = parentTransactionID
        case .capture, .void:
            return await followUpLookup(query.kind)
        }
        let found = await search(query)
        if let parent, case let .found(_, refunded) = found, refunded != parent {
            return .unavailable("parent_mismatch")
        }
        return found.withoutParent
    }

    /// A charge or refund by its id, else by its invoice number over the window (see ``lookup(_:)``).
    private func search(_ query: GatewayLookupQuery) async -> DetailsLookup {
        if let id = query.gatewayTransactionID, !id.isEmpty, id != "0" {
            let byID = await detailsLookup(transactionID: id)
            if case .notFound = byID {} else { return byID }
        }
        let from = query.since.addingTimeInterval(-Self.lookupClockSlack)
        guard Date().timeIntervalSince(from) <= Self.maximumLookupWindow else { return .unavailable("window_not_covered") }
        var best: AuthorizeNetResponses.TransactionSummary?
        for _ in 0..<2 {
            let started = Date()
            do {
                best = Self.better(best, try await searchUnsettled(reference: query.reference))
                let settled = try await searchSettled(reference: query.reference, from: from, to: Date().addingTimeInterval(Self.settlementAhead))
                best = Self.better(best, settled.match)
                let movedWhileSearching = settled.latestSettlement.map { $0 >= started.addingTimeInterval(-Self.lookupClockSlack) } ?? false
                if best != nil || !movedWhileSearching { break }
            } catch {
                return .unavailable(error.reason)
            }
        }
        guard let transactionID = best?.transId else { return .notFound }
        return await detailsLookup(transactionID: transactionID)
    }

    /// A capture or a void, from its parent's current details.
    private func followUpLookup(_ kind: GatewayLookupQuery.Kind) async -> GatewayLookup {
        let parentID: String
        switch kind {
        case let .capture(parent, _), let .void(parent): parentID = parent
        case .charge, .refund: return .unavailable("not_a_follow_up")
        }
        guard !parentID.isEmpty else { return .unavailable("parent_unknown") }
        switch await detailsRecord(transactionID: parentID) {
        case let .found(details): return Self.followUpResult(kind, of: details)
        case .notFound: return .unavailable("parent_not_found")
        case let .unavailable(reason): return .unavailable(reason)
        }
    }

    /// Whether a capture or void of a parent happened, by the parent's current `transactionStatus`.
    ///
    /// Capture: a captured status (`capturedPendingSettlement`, settling, `settledSuccessfully`) is
    /// found approved when the settled amount is the capture's (else in doubt:
    /// `capture_amount_mismatch`); still `authorizedPendingCapture`, or voided, expired, declined,
    /// is `notFound` (no capture happened, and the parent's status is current); held for review is
    /// in doubt. Void: `voided` is found approved; `couldNotVoid` is a permanent error; any other
    /// status of the schema is `notFound` (not voided). A status outside the schema is `unavailable`.
    static func followUpResult(_ kind: GatewayLookupQuery.Kind, of details: AuthorizeNetResponses.TransactionDetails) -> GatewayLookup {
        guard let status = details.transactionStatus else { return .unavailable("unreadable_response") }
        let known = AuthorizeNetCodes.collectedStatuses.contains(status) || AuthorizeNetCodes.reviewStatuses.contains(status)
            || AuthorizeNetCodes.notCollectedStatuses[status] != nil
        guard known else { return .unavailable("transaction_status: \(status)") }
        var result = GatewayResult(outcome: .approved, transactionID: details.transId, authCode: details.authCode,
                                   responseCode: details.responseReasonCode, responseText: details.responseReasonDescription)
        switch kind {
        case let .capture(_, amount):
            if AuthorizeNetCodes.reviewStatuses.contains(status) {
                result.outcome = .inDoubt(reason: "\(AuthorizeNetCodes.heldForReview): \(status)")
                return .found(result)
            }
            guard AuthorizeNetCodes.capturedStatuses.contains(status) else { return .notFound }
            if let settled = details.settleAmount, minorUnits(settled, exponent: amount.currency.minorUnitExponent) != amount.minorUnits {
                result.outcome = .inDoubt(reason: "capture_amount_mismatch")
            }
            return .found(result)
        case .void:
            switch status {
            case "voided": return .found(result)
            case "couldNotVoid":
                result.outcome = .declined(code: "could_not_void", category: .error)
                return .found(result)
            default: return .notFound
            }
        case .charge, .refund:
            return .unavailable("not_a_follow_up")
        }
    }

    /// Why a search could not be completed.
    struct LookupFailure: Error {
        var reason: String
    }

    /// The best match for `reference` in the unsettled list, read to its last page.
    func searchUnsettled(reference: String) async throws(LookupFailure) -> AuthorizeNetResponses.TransactionSummary? {
        try await searchPages(reference: reference) { page in requests.unsettledTransactions(page: page) }
    }

    /// The best match for `reference` in the batches settled between `from` and `to`, and the
    /// latest settlement time seen.
    func searchSettled(reference: String, from: Date, to: Date) async throws(LookupFailure)
        -> (match: AuthorizeNetResponses.TransactionSummary?, latestSettlement: Date?)
    {
        var best: AuthorizeNetResponses.TransactionSummary?
        var latest: Date?
        var start = from
        while start < to {
            let end = min(to, start.addingTimeInterval(Self.settledBatchRange))
            let exchange = await http.post(url: endpoint, contentType: "application/json",
                                           body: requests.settledBatches(from: start, to: end))
            guard case let .response(200, body, _) = exchange else { throw LookupFailure(reason: Self.reason(exchange)) }
            guard let list = AuthorizeNetResponses.decode(AuthorizeNetResponses.BatchList.self, from: body) else {
                throw LookupFailure(reason: "unreadable_response")
            }
            if list.messages?.resultCode != "Ok" {
                throw LookupFailure(reason: list.messages?.message.first?.code ?? "unreadable_response")
            }
            for batch in list.batches {
                guard let batchID = batch.batchId else { throw LookupFailure(reason: "unreadable_response") }
                if let settled = batch.settlementTime, settled > (latest ?? .distantPast) { latest = settled }
                let match = try await searchPages(reference: reference) { page in
                    requests.batchTransactions(batchID: batchID, page: page)
                }
                best = Self.better(best, match)
            }
            start = end
        }
        return (best, latest)
    }

    /// Reads a paged transaction list to its end and keeps the best match for `reference`.
    private func searchPages(reference: String, body: (Int) -> [UInt8]) async throws(LookupFailure)
        -> AuthorizeNetResponses.TransactionSummary?
    {
        var best: AuthorizeNetResponses.TransactionSummary?
        var page = 1
        while true {
            guard page <= Self.maximumLookupPages else { throw LookupFailure(reason: "lookup_incomplete") }
            let exchange = await http.post(url: endpoint, contentType: "application/json", body: body(page))
            guard case let .response(200, bytes, _) = exchange else { throw LookupFailure(reason: Self.reason(exchange)) }
            guard let list = AuthorizeNetResponses.decode(AuthorizeNetResponses.TransactionList.self, from: bytes) else {
                throw LookupFailure(reason: "unreadable_response")
            }
            if list.messages?.resultCode != "Ok" {
                throw LookupFailure(reason: list.messages?.message.first?.code ?? "unreadable_response")
            }
            for summary in list.transactions where summary.invoiceNumber == reference {
                best = Self.better(best, summary)
            }
            let total = list.totalNumInResultSet ?? list.transactions.count
            if list.transactions.count < AuthorizeNetRequests.pageSize || page * AuthorizeNetRequests.pageSize >= total {
                return best
            }
            page += 1
        }
    }

    /// The better of two matches (see ``rank(_:)``); the first when equal.
    static func better(
        _ current: AuthorizeNetResponses.TransactionSummary?, _ candidate: AuthorizeNetResponses.TransactionSummary?
    ) -> AuthorizeNetResponses.TransactionSummary? {
        guard let candidate else { return current }
        guard let current else { return candidate }
        return rank(candidate) > rank(current) ? candidate : current
    }

    /// What `getTransactionDetailsRequest` answered.
    enum DetailsRecord {
        case found(AuthorizeNetResponses.TransactionDetails)
        case notFound
        case unavailable(String)
    }

    /// One transaction's details as sent by the gateway.
    func detailsRecord(transactionID: String) async -> DetailsRecord {
        let exchange = await http.post(url: endpoint, contentType: "application/json",
                                       body: requests.transactionDetails(transactionID: transactionID))
        guard case let .response(200, body, _) = exchange else { return .unavailable(Self.reason(exchange)) }
        guard let reply = AuthorizeNetResponses.decode(AuthorizeNetResponses.TransactionDetailsReply.self, from: body) else {
            return .unavailable("unreadable_response")
        }
        guard let details = reply.transaction, reply.messages?.resultCode != "Error" else {
            let code = reply.messages?.message.first?.code
            return code == "E00040" ? .notFound : .unavailable(code ?? "unreadable_response")
        }
        return .found(details)
    }

    /// A looked-up charge or refund, with the transaction it refunds (checked, then dropped).
    enum DetailsLookup {
        case found(GatewayResult, parentTransactionID: String?)
        case notFound
        case unavailable(String)

        var withoutParent: GatewayLookup {
            switch self {
            case let .found(result, _): .found(result)
            case .notFound: .notFound
            case let .unavailable(reason): .unavailable(reason)
            }
        }
    }

    /// One transaction's details as a result.
    func details(transactionID: String) async -> GatewayLookup {
        await detailsLookup(transactionID: transactionID).withoutParent
    }

    /// One transaction's details as a result, decided by its `transactionStatus` (its response
    /// code only when the status is missing); the network transaction id of an approval is kept.
    func detailsLookup(transactionID: String) async -> DetailsLookup {
        let details: AuthorizeNetResponses.TransactionDetails
        switch await detailsRecord(transactionID: transactionID) {
        case let .found(record): details = record
        case .notFound: return .notFound
        case let .unavailable(reason): return .unavailable(reason)
        }
        let outcome: GatewayResult.Outcome
        if let status = details.transactionStatus {
            outcome = AuthorizeNetCodes.outcome(status: status, responseCode: details.responseCode, reasonCode: details.responseReasonCode)
        } else if let mapped = AuthorizeNetCodes.outcome(responseCode: details.responseCode, reasonCode: details.responseReasonCode) {
            outcome = mapped
        } else {
            return .unavailable("unreadable_response")
        }
        return .found(GatewayResult(outcome: outcome, transactionID: details.transId ?? transactionID,
                                    authCode: details.authCode, responseCode: details.responseReasonCode,
                                    responseText: details.responseReasonDescription, avsResult: details.avsResponse,
                                    cvvResult: details.cardCodeResponse,
                                    networkTransactionID: outcome == .approved ? details.networkTransId : nil),
                      parentTransactionID: details.refTransId)
    }

    /// A decimal amount of the reporting API (`30.00`, or `30.0` and `30` once read as a JSON
    /// number) in minor units of a currency with `exponent` decimals; `nil` when it is not one.
    static func minorUnits(_ text: String, exponent: Int) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]), whole >= 0 else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        while fraction.count > exponent, fraction.hasSuffix("0") { fraction.removeLast() }
        guard fraction.count <= exponent, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        fraction += String(repeating: "0", count: exponent - fraction.count)
        var scale: Int64 = 1
        for _ in 0..<exponent { scale *= 10 }
        return whole * scale + (Int64(fraction) ?? 0)
    }

    /// Approved charges first, then those under review, then the rest.
    static func rank(_ summary: AuthorizeNetResponses.TransactionSummary) -> Int {
        guard let status = summary.transactionStatus else { return 0 }
        if AuthorizeNetCodes.collectedStatuses.contains(status) { return 2 }
        return AuthorizeNetCodes.reviewStatuses.contains(status) ? 1 : 0
    }

    static func reason(_ exchange: HTTPExchange) -> String {
        switch exchange {
        case let .notSent(reason), let .lost(reason): reason
        case let .response(status, _, _): "http_\(status)"
        }
    }
}
