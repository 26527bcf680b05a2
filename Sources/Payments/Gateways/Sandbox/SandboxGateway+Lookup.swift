import Vault

extension SandboxGateway {
    /// Finds a transaction by id (when given) or by the reference it was sent with (the approved
    /// one when several were, else the latest). `notFound` proves absence: the ledger holds every
    /// transaction ever made (unless an in-memory ledger's retention forgot some; then it is
    /// `unavailable`).
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        do {
            if let id = gatewayTransactionID, let found = try await ledger.sandboxTransaction(id: id) {
                return Self.found(found)
            }
            let sent = try await ledger.sandboxTransactions(reference: reference)
            if let found = sent.last(where: \.isApproved) ?? sent.last { return Self.found(found) }
            return absent()
        } catch {
            return .unavailable("sandbox_ledger_unavailable")
        }
    }

    /// Finds any operation from the ledger: a charge as ``lookup(reference:gatewayTransactionID:)``
    /// does; a refund among the refunds of its parent sent with the query's reference (of the
    /// query's amount, when given); a capture or a void among the calls remembered with the
    /// query's reference on its parent. A follow-up the sandbox refused changed nothing and is not
    /// found; one that was processed is found with the answer it was given.
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        do {
            switch query.kind {
            case .charge:
                return await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
            case let .refund(parentID, amount):
                let refunds = try await ledger.sandboxTransactions(reference: query.reference).filter { refund in
                    refund.kind == .refund && refund.parentID == parentID
                        && (amount.map { refund.authorized.minorUnits + refund.reversed.minorUnits == $0.minorUnits } ?? true)
                }
                if let found = refunds.last(where: \.isApproved) ?? refunds.last { return .found(found.result) }
                return absent()
            case let .capture(parentID, _):
                return try await followUp("capture", of: parentID, reference: query.reference)
            case let .void(parentID):
                return try await followUp("void", of: parentID, reference: query.reference)
            }
        } catch {
            return .unavailable("sandbox_ledger_unavailable")
        }
    }

    private func followUp(_ operation: String, of parentID: String, reference: String) async throws -> GatewayLookup {
        let calls = try await ledger.sandboxCalls(reference: reference)
        if let done = calls.last(where: { $0.operation == operation && $0.parentID == parentID && $0.result.isApproved }) {
            return .found(done.result)
        }
        return absent()
    }

    /// What a look-up that found `transaction` answers: its result, unless its records cannot be searched.
    private static func found(_ transaction: SandboxTransaction) -> GatewayLookup {
        transaction.result.responseText == unsearchable ? .unavailable("sandbox_records_unavailable") : .found(transaction.result)
    }

    private func absent() -> GatewayLookup {
        ledger.sandboxLedgerForgets ? .unavailable("sandbox_ledger_forgot_older_records") : .notFound
    }
}
