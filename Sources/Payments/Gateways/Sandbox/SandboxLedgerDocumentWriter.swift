import Vault

/// Writes the sandbox ledger's documents by hand: the JSON that ``SandboxLedgerCoding``'s decoders
/// read, keys sorted by their UTF-8 bytes, absent optionals left out, strings escaped by
/// ``CanonicalJSON/append(string:to:)`` (the project's one escaping rule).
///
/// Written by hand because a database engine writes these documents inside its write
/// transaction for every sandbox charge (SQLite's single writer thread is the charge runner's
/// serial point), where `JSONEncoder`'s generic machinery cost more than the SQL. The documents
/// read back to exactly the values written; a differential test compares them with what
/// `JSONEncoder` wrote before, over generated values.
enum SandboxLedgerDocumentWriter {
    /// `{"authorized":…,"captured":…,"id":…,"kind":…,…,"voided":…}`.
    static func transaction(_ transaction: SandboxTransaction) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(640)
        output.append(UInt8(ascii: "{"))
        key("authorized", first: true, &output)
        money(transaction.authorized, &output)
        key("captured", &output)
        money(transaction.captured, &output)
        key("id", &output)
        CanonicalJSON.append(string: transaction.id, to: &output)
        key("kind", &output)
        CanonicalJSON.append(string: transaction.kind.rawValue, to: &output)
        let credential: String?
        var originalNetworkTransactionID: String?
        switch transaction.storedCredential {
        case nil: credential = nil
        case .initial: credential = "initial"
        case .customerInitiated: credential = "customer_initiated"
        case let .recurring(original):
            credential = "recurring"
            originalNetworkTransactionID = original
        }
        optional("originalNetworkTransactionID", originalNetworkTransactionID, &output)
        optional("parentID", transaction.parentID, &output)
        key("reference", &output)
        CanonicalJSON.append(string: transaction.reference, to: &output)
        key("refunded", &output)
        money(transaction.refunded, &output)
        key("result", &output)
        result(transaction.result, &output)
        key("reversed", &output)
        money(transaction.reversed, &output)
        optional("storedCredential", credential, &output)
        key("voided", &output)
        output.append(contentsOf: (transaction.voided ? "true" : "false").utf8)
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// `{"fingerprint":…,"result":{…}}`.
    static func call(fingerprint: String, result: GatewayResult) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(384)
        output.append(UInt8(ascii: "{"))
        key("fingerprint", first: true, &output)
        CanonicalJSON.append(string: fingerprint, to: &output)
        key("result", &output)
        self.result(result, &output)
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// A ``GatewayResult``: the outcome as `approved`, `declined`, `error` or `in_doubt` with its
    /// code, category or retryability, then the gateway's fields; absent ones left out.
    private static func result(_ result: GatewayResult, _ output: inout [UInt8]) {
        let outcome: String
        var code: String?
        var category: DeclineCategory?
        var retryable: Bool?
        switch result.outcome {
        case .approved:
            outcome = "approved"
        case let .declined(declineCode, declineCategory):
            outcome = "declined"
            code = declineCode
            category = declineCategory
        case let .error(errorCode, isRetryable):
            outcome = "error"
            code = errorCode
            retryable = isRetryable
        case let .inDoubt(reason):
            outcome = "in_doubt"
            code = reason
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name, first: first, &output)
            first = false
            CanonicalJSON.append(string: value, to: &output)
        }
        field("authCode", result.authCode)
        field("avsResult", result.avsResult)
        field("category", category?.rawValue)
        field("code", code)
        field("cvvResult", result.cvvResult)
        field("networkTransactionID", result.networkTransactionID)
        field("outcome", outcome)
        field("responseCode", result.responseCode)
        field("responseText", result.responseText)
        if let retryAfter = result.retryAfter {
            // Whole milliseconds, as the decoder reads them back.
            let milliseconds = retryAfter.components.seconds * 1000 + retryAfter.components.attoseconds / 1_000_000_000_000_000
            key("retryAfterMilliseconds", first: first, &output)
            first = false
            output.append(contentsOf: String(milliseconds).utf8)
        }
        if let retryable {
            key("retryable", first: first, &output)
            first = false
            output.append(contentsOf: (retryable ? "true" : "false").utf8)
        }
        field("transactionID", result.transactionID)
        output.append(UInt8(ascii: "}"))
    }

    /// `{"currency":"USD","minorUnits":1999}`.
    private static func money(_ money: Money, _ output: inout [UInt8]) {
        output.append(contentsOf: #"{"currency":"#.utf8)
        CanonicalJSON.append(string: money.currency.code, to: &output)
        output.append(contentsOf: #","minorUnits":"#.utf8)
        output.append(contentsOf: String(money.minorUnits).utf8)
        output.append(UInt8(ascii: "}"))
    }

    private static func optional(_ name: String, _ value: String?, _ output: inout [UInt8]) {
        guard let value else { return }
        key(name, &output)
        CanonicalJSON.append(string: value, to: &output)
    }

    /// `"name":`, after a comma unless it is the object's first member. Names are plain ASCII.
    private static func key(_ name: String, first: Bool = false, _ output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: #"":"#.utf8)
    }
}
