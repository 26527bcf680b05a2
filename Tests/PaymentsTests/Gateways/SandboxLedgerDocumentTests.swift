import Foundation
@testable import Payments
import PropertyBased
import Testing
import Vault

/// The sandbox ledger's hand-written documents must read back to exactly the values written, and
/// be what `JSONEncoder` wrote before (`OldSandboxLedgerEncoding`) but for slashes, which the
/// project's one escaping rule leaves unescaped: rows written by either decode the same.
@Suite struct SandboxLedgerDocumentTests {
    /// Characters that stress escaping and key order: controls, quotes, backslash, slash, both
    /// cases, digits, accented letters, CJK and an emoji.
    static let alphabet = Array("\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\"\\/ aZz09_-.:é€中😀\u{7F}")
    static let strings = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...10).map { String($0.map { alphabet[$0] }) }
    static let optionalStrings = zip(Gen.int(in: 0...2), strings).map { kind, text in kind == 0 ? nil : text }
    /// Zero, small amounts of either sign, and any `Int64` up to both extremes.
    static let amounts = zip(Gen.int(in: 0...4), Gen<Int64>.value(in: -10_000...10_000), Gen<Int64>.value())
        .map { kind, small, any in [0, small, any, Int64.min, Int64.max][kind] }
    static let currencies = Gen.int(in: 0...3).map { index in try! Currency(code: ["USD", "JPY", "KWD", "EUR"][index]) }
    static let money = zip(amounts, currencies).map { Money(minorUnits: $0, currency: $1) }
    static let kinds: [SandboxTransaction.Kind] = [.sale, .authorization, .verification, .refund]

    /// Every outcome with every decline category and both retryabilities.
    static let outcomes = zip(Gen.int(in: 0...3), strings, Gen.int(in: 0...(DeclineCategory.allCases.count - 1)), Gen.bool)
        .map { kind, code, category, retryable -> GatewayResult.Outcome in
            switch kind {
            case 0: .approved
            case 1: .declined(code: code, category: DeclineCategory.allCases[category])
            case 2: .error(code: code, retryable: retryable)
            default: .inDoubt(reason: code)
            }
        }
    /// Whole milliseconds (what the document keeps), up to about three years.
    static let retryAfters = zip(Gen.bool, Gen<Int64>.value(in: 0...100_000_000_000)).map { present, milliseconds in
        present ? Duration.milliseconds(milliseconds) : nil
    }
    static let results = zip(outcomes, optionalStrings, optionalStrings, optionalStrings, optionalStrings, optionalStrings,
                             optionalStrings, optionalStrings, retryAfters)
        .map { outcome, transactionID, authCode, responseCode, responseText, avs, cvv, network, retryAfter in
            var result = GatewayResult(outcome: outcome, transactionID: transactionID, authCode: authCode, responseCode: responseCode,
                                       responseText: responseText, avsResult: avs, cvvResult: cvv, networkTransactionID: network)
            result.retryAfter = retryAfter
            return result
        }
    /// None, and every stored-credential use, a recurring one with and without the first use's id.
    static let credentials = zip(Gen.int(in: 0...3), optionalStrings).map { kind, original -> StoredCredentialUse? in
        switch kind {
        case 0: nil
        case 1: .initial
        case 2: .customerInitiated
        default: .recurring(originalNetworkTransactionID: original)
        }
    }
    static let transactions = zip(strings, Gen.int(in: 0...(kinds.count - 1)), strings, zip(money, money, money, money), Gen.bool,
                                  optionalStrings, results, credentials)
        .map { id, kind, reference, amounts, voided, parentID, result, credential in
            SandboxTransaction(id: id, kind: kinds[kind], reference: reference, authorized: amounts.0, captured: amounts.1,
                               refunded: amounts.2, voided: voided, reversed: amounts.3, parentID: parentID, result: result,
                               storedCredential: credential)
        }
    static let calls = zip(strings, strings, strings, optionalStrings, strings, results)
        .map { key, operation, reference, parentID, fingerprint, result in
            SandboxRememberedCall(idempotencyKey: key, operation: operation, reference: reference, parentID: parentID,
                                  fingerprint: fingerprint, result: result)
        }

    @Test func transactionDocumentsReadBackAsTheOldEncodersDid() async {
        await propertyCheck(count: 500, input: Self.transactions) { transaction in
            let written = SandboxLedgerCoding.document(transaction)
            let old = OldSandboxLedgerEncoding.document(transaction)
            #expect(written == OldSandboxLedgerEncoding.unescapedSlashes(transaction))
            #expect((try? SandboxLedgerCoding.transaction(written)) == transaction)
            #expect((try? SandboxLedgerCoding.transaction(old)) == transaction)
        }
    }

    @Test func callDocumentsReadBackAsTheOldEncodersDid() async {
        await propertyCheck(count: 500, input: Self.calls) { call in
            let written = SandboxLedgerCoding.document(call)
            let old = OldSandboxLedgerEncoding.document(call)
            #expect(written == OldSandboxLedgerEncoding.unescapedSlashes(call))
            func read(_ document: String) -> SandboxRememberedCall? {
                try? SandboxLedgerCoding.call(idempotencyKey: call.idempotencyKey, operation: call.operation, reference: call.reference,
                                              parentID: call.parentID, document: document)
            }
            #expect(read(written) == call)
            #expect(read(old) == call)
        }
    }

    @Test func anApprovedRecurringSaleIsWrittenExactly() throws {
        let usd = try Currency(code: "USD")
        var result = GatewayResult(outcome: .approved, transactionID: "sbx_1", authCode: "A1B2C3", responseCode: "00",
                                   responseText: "Approved", avsResult: "Y", cvvResult: "M", networkTransactionID: "000000000000042")
        result.retryAfter = nil
        let transaction = SandboxTransaction(
            id: "sbx_1", kind: .sale, reference: "ord/1", authorized: Money(minorUnits: 1999, currency: usd),
            captured: Money(minorUnits: 1999, currency: usd), refunded: Money(minorUnits: 0, currency: usd), voided: false, parentID: nil,
            result: result, storedCredential: .recurring(originalNetworkTransactionID: "123456789012345"))
        #expect(
            SandboxLedgerCoding.document(transaction)
                == #"{"authorized":{"currency":"USD","minorUnits":1999},"captured":{"currency":"USD","minorUnits":1999},"id":"sbx_1","#
                + #""kind":"sale","originalNetworkTransactionID":"123456789012345","reference":"ord/1","#
                + #""refunded":{"currency":"USD","minorUnits":0},"result":{"authCode":"A1B2C3","avsResult":"Y","cvvResult":"M","#
                + #""networkTransactionID":"000000000000042","outcome":"approved","responseCode":"00","responseText":"Approved","#
                + #""transactionID":"sbx_1"},"reversed":{"currency":"USD","minorUnits":0},"storedCredential":"recurring","voided":false}"#)
    }

    @Test func aRateLimitedCallIsWrittenExactly() {
        let call = SandboxRememberedCall(
            idempotencyKey: "k", operation: "sale", reference: "r", parentID: nil, fingerprint: "sale|r|100|USD|4242",
            result: .rateLimited(retryAfter: .milliseconds(1500), responseCode: "429", text: "Slow \"down\""))
        #expect(
            SandboxLedgerCoding.document(call)
                == #"{"fingerprint":"sale|r|100|USD|4242","result":{"code":"rate_limited","outcome":"error","responseCode":"429","#
                + #""responseText":"Slow \"down\"","retryAfterMilliseconds":1500,"retryable":true}}"#)
    }
}
