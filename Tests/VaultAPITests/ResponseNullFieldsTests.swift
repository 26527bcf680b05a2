import Foundation
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp

/// Response fields the contract always lists are written as `null` when absent (never left out);
/// fields the contract marks as only-when-present are left out.
@Suite struct ResponseNullFieldsTests {
    static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONCoding.encoder.encode(value)) as? [String: Any])
    }

    @Test func anExplicitNullFieldIsWrittenAndAPlainOptionalIsLeftOut() throws {
        struct Sample: Encodable {
            @ExplicitNull var listed: String?
            var onlyWhenPresent: String?
        }
        #expect(String(decoding: try JSONCoding.encoder.encode(Sample(listed: nil, onlyWhenPresent: nil)), as: UTF8.self) == #"{"listed":null}"#)
        #expect(String(decoding: try JSONCoding.encoder.encode(Sample(listed: "a", onlyWhenPresent: "b")), as: UTF8.self) == #"{"listed":"a","onlyWhenPresent":"b"}"#)
    }

    @Test func aNewTransactionListsEveryFieldWithNulls() throws {
        let transaction = Transaction(
            id: "txn_1", merchantID: "m_1", type: .sale, amount: 1250, currency: try Currency(code: "USD"), gateway: "sandbox",
            now: Date(timeIntervalSince1970: 0))
        let json = try Self.object(TransactionResponse(transaction, policy: ReversalPolicy(window: 3600, partialVoid: false)))
        #expect(Set(json.keys) == [
            "id", "type", "status", "state", "subState", "amount", "currency", "capturedAmount", "refundedAmount", "voidedAmount",
            "refundableAmount", "reverseMode", "voidableUntil", "secureCardReference", "merchantReference", "cardType", "maskedNumber",
            "scheduleId", "stepId", "attempt", "parentId", "description", "createdAt", "updatedAt", "gateway", "decline", "errorCode",
            "storedCredential",
        ])
        for field in ["secureCardReference", "scheduleId", "stepId", "attempt", "parentId", "description", "decline", "errorCode", "storedCredential"] {
            #expect(json[field] is NSNull, "\(field)")
        }
        let gateway = try #require(json["gateway"] as? [String: Any])
        #expect(Set(gateway.keys) == ["name", "transactionId", "authCode", "responseCode", "responseText", "avsResult", "cvvResult"])
        #expect(gateway["transactionId"] is NSNull)
        #expect(gateway["cvvResult"] is NSNull)
    }

    @Test func theLastPageHasANullCursor() throws {
        let json = try Self.object(Page(fetched: [1, 2], limit: 5) { String($0) })
        #expect(json["nextCursor"] is NSNull)
        #expect((json["data"] as? [Int]) == [1, 2])
    }

    @Test func anErrorWithoutAParameterNamesNone() throws {
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(APIError.unauthenticated.envelope)) as? [String: Any])
        let error = try #require(envelope["error"] as? [String: Any])
        #expect(error["param"] is NSNull)
    }

    @Test func aRunningChargeRunHasNullEndAndSummary() throws {
        let record = ChargeRunRecord(
            id: "run_1", merchantID: "m_1", status: .running, asOf: Date(timeIntervalSince1970: 0), dryRun: false, startedBy: "apikey:k",
            startedAt: Date(timeIntervalSince1970: 0), owner: nil)
        let json = try Self.object(ChargeRunResponse(record))
        #expect(json["finishedAt"] is NSNull)
        #expect(json["summary"] is NSNull)
    }

    @Test func emptyStatisticsHaveNullFigures() throws {
        let figures = try Self.object(StatisticsResponse.Figures(StatusStatistics()))
        #expect(figures["min"] is NSNull)
        #expect(figures["max"] is NSNull)
        #expect(figures["average"] is NSNull)
    }
}
