import Foundation
import Vault

/// How a database keeps the sandbox's transactions and remembered calls: one JSON document per
/// row (beside the columns it is searched by), the same on every engine.
///
/// The documents hold amounts, references, ids, codes and texts, never card data.
public enum SandboxLedgerCoding {
    /// A stored document could not be read back.
    public struct UnreadableRecord: Error, CustomStringConvertible {
        /// What was being read.
        public var what: String
        /// `unreadable sandbox <what>`.
        public var description: String { "unreadable sandbox \(what)" }
    }

    /// The document of a transaction (written by hand: see ``SandboxLedgerDocumentWriter``).
    public static func document(_ transaction: SandboxTransaction) -> String {
        SandboxLedgerDocumentWriter.transaction(transaction)
    }

    /// The transaction of a document.
    /// - Throws: ``UnreadableRecord`` for a document this build cannot read.
    public static func transaction(_ document: String) throws -> SandboxTransaction {
        guard let stored = try? JSONDecoder().decode(StoredTransaction.self, from: Data(document.utf8)),
              let transaction = stored.transaction
        else { throw UnreadableRecord(what: "transaction") }
        return transaction
    }

    /// The document of a remembered call (its fingerprint and answer; the key, operation,
    /// reference and parent are columns), written by hand: see ``SandboxLedgerDocumentWriter``.
    public static func document(_ call: SandboxRememberedCall) -> String {
        SandboxLedgerDocumentWriter.call(fingerprint: call.fingerprint, result: call.result)
    }

    /// The remembered call of a row's columns and document.
    /// - Throws: ``UnreadableRecord`` for a document this build cannot read.
    public static func call(idempotencyKey: String, operation: String, reference: String, parentID: String?,
                            document: String) throws -> SandboxRememberedCall {
        guard let stored = try? JSONDecoder().decode(StoredCall.self, from: Data(document.utf8)),
              let result = stored.result.result
        else { throw UnreadableRecord(what: "call") }
        return SandboxRememberedCall(idempotencyKey: idempotencyKey, operation: operation, reference: reference,
                                     parentID: parentID, fingerprint: stored.fingerprint, result: result)
    }
}

// The documents' shapes, read with `JSONDecoder`. They are written by hand
// (`SandboxLedgerDocumentWriter`); their `Encodable` half is what `JSONEncoder` wrote before, kept
// as the differential test's oracle only.

/// A remembered call's document.
struct StoredCall: Codable {
    var fingerprint: String
    var result: StoredResult
}

/// A transaction's document.
struct StoredTransaction: Codable {
    var id: String
    var kind: SandboxTransaction.Kind
    var reference: String
    var authorized: Money
    var captured: Money
    var refunded: Money
    var voided: Bool
    var reversed: Money
    var parentID: String?
    var result: StoredResult
    var storedCredential: String?
    var originalNetworkTransactionID: String?

    init(_ transaction: SandboxTransaction) {
        id = transaction.id
        kind = transaction.kind
        reference = transaction.reference
        authorized = transaction.authorized
        captured = transaction.captured
        refunded = transaction.refunded
        voided = transaction.voided
        reversed = transaction.reversed
        parentID = transaction.parentID
        result = StoredResult(transaction.result)
        switch transaction.storedCredential {
        case nil: storedCredential = nil
        case .initial: storedCredential = "initial"
        case .customerInitiated: storedCredential = "customer_initiated"
        case let .recurring(original):
            storedCredential = "recurring"
            originalNetworkTransactionID = original
        }
    }

    var transaction: SandboxTransaction? {
        guard let result = result.result else { return nil }
        let use: StoredCredentialUse?
        switch storedCredential {
        case nil: use = nil
        case "initial": use = .initial
        case "customer_initiated": use = .customerInitiated
        case "recurring": use = .recurring(originalNetworkTransactionID: originalNetworkTransactionID)
        default: return nil
        }
        return SandboxTransaction(id: id, kind: kind, reference: reference, authorized: authorized, captured: captured,
                                  refunded: refunded, voided: voided, reversed: reversed, parentID: parentID,
                                  result: result, storedCredential: use)
    }
}

/// A ``GatewayResult`` as a document: the outcome as `approved`, `declined`, `error` or `in_doubt`
/// with its code, category or reason, then the gateway's fields.
struct StoredResult: Codable {
    var outcome: String
    var code: String?
    var category: DeclineCategory?
    var retryable: Bool?
    var transactionID: String?
    var authCode: String?
    var responseCode: String?
    var responseText: String?
    var avsResult: String?
    var cvvResult: String?
    var retryAfterMilliseconds: Int64?
    var networkTransactionID: String?

    init(_ result: GatewayResult) {
        switch result.outcome {
        case .approved:
            outcome = "approved"
        case let .declined(code, category):
            outcome = "declined"
            self.code = code
            self.category = category
        case let .error(code, retryable):
            outcome = "error"
            self.code = code
            self.retryable = retryable
        case let .inDoubt(reason):
            outcome = "in_doubt"
            code = reason
        }
        transactionID = result.transactionID
        authCode = result.authCode
        responseCode = result.responseCode
        responseText = result.responseText
        avsResult = result.avsResult
        cvvResult = result.cvvResult
        retryAfterMilliseconds = result.retryAfter.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
        networkTransactionID = result.networkTransactionID
    }

    var result: GatewayResult? {
        let outcome: GatewayResult.Outcome
        switch (self.outcome, code, category, retryable) {
        case ("approved", _, _, _): outcome = .approved
        case let ("declined", code?, category?, _): outcome = .declined(code: code, category: category)
        case let ("error", code?, _, retryable?): outcome = .error(code: code, retryable: retryable)
        case let ("in_doubt", reason?, _, _): outcome = .inDoubt(reason: reason)
        default: return nil
        }
        var result = GatewayResult(outcome: outcome, transactionID: transactionID, authCode: authCode,
                                   responseCode: responseCode, responseText: responseText, avsResult: avsResult,
                                   cvvResult: cvvResult, networkTransactionID: networkTransactionID)
        result.retryAfter = retryAfterMilliseconds.map { .milliseconds($0) }
        return result
    }
}
