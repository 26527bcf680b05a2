import Foundation
@testable import GatewayFakes
@testable import Payments
import Testing
import Vault

/// An Authorize.Net lookup by reference sees settled transactions (settled
/// batches over the whole window since the attempt, 31 days per request), reads the unsettled
/// list past 5,000, and never answers `notFound` without having searched everything.
@Suite struct AuthorizeNetSettledLookupTests {
    typealias F = GatewayFixtures

    static func query(_ reference: String, daysAgo: Double = 0) -> GatewayLookupQuery {
        GatewayLookupQuery(reference: reference, since: Date().addingTimeInterval(-daysAgo * 86_400))
    }

    @Test func aChargeSettledBeforeTheLookupIsFoundInItsBatch() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-SETTLED"))
            #expect(sale.outcome == .approved)
            fake.settleAll()
            guard case let .found(found) = await gateway.lookup(Self.query("INV-SETTLED")) else {
                Issue.record("a settled charge was not found by its reference")
                return
            }
            #expect(found.outcome == .approved && found.transactionID == sale.transactionID)
            #expect(fake.requestCount("getSettledBatchListRequest") == 1)
            #expect(fake.requestCount("getTransactionListRequest") == 1)
        }
    }

    @Test func aLongWindowIsSearchedIn31DayRangesAndFindsAnOldBatch() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-OLD"))
            fake.settleBatch(at: Date().addingTimeInterval(-40 * 86_400))
            guard case let .found(found) = await gateway.lookup(Self.query("INV-OLD", daysAgo: 70)) else {
                Issue.record("a charge settled 40 days ago was not found")
                return
            }
            #expect(found.transactionID == sale.transactionID)
            // 70 days and an hour of slack, ten minutes ahead: three ranges of at most 31 days
            // (the fake refuses longer ones, as the API does).
            #expect(fake.requestCount("getSettledBatchListRequest") == 3)
            #expect(await gateway.lookup(Self.query("INV-NONE", daysAgo: 70)) == .notFound)
        }
    }

    @Test func theUnsettledListIsReadPast5000() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            fake.addUnsettledSales(count: 5_200)
            // Newest first: the oldest sale is on the sixth page of 1,000.
            guard case let .found(found) = await gateway.lookup(Self.query("BULK-0")) else {
                Issue.record("a sale on the sixth page of the unsettled list was not found")
                return
            }
            #expect(found.outcome == .approved)
        }
    }

    @Test func aFailedBatchSearchIsNotProofOfAbsence() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            _ = await gateway.sale(F.charge("k", reference: "INV-A"))
            fake.settleAll()
            // The unsettled list answers, then the settled batch list, or a batch's list, fails.
            fake.failReports("getSettledBatchListRequest")
            #expect(await gateway.lookup(Self.query("INV-MISSING")) == .unavailable("E00001"))
            fake.failReports("getTransactionListRequest")
            #expect(await gateway.lookup(Self.query("INV-MISSING")) == .unavailable("E00001"))
            fake.core.enqueue(.garbage, for: .lookup)
            #expect(await gateway.lookup(Self.query("INV-MISSING")) == .unavailable("unreadable_response"))
            fake.core.enqueue(.status(503), for: .lookup)
            #expect(await gateway.lookup(Self.query("INV-MISSING")) == .unavailable("http_503"))
            #expect(await gateway.lookup(Self.query("INV-MISSING")) == .notFound)
        }
    }

    @Test func aWindowLongerThanTheSearchBoundIsNotCovered() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            #expect(await gateway.lookup(Self.query("INV-ANCIENT", daysAgo: 400)) == .unavailable("window_not_covered"))
            #expect(fake.core.requests.isEmpty)
        }
    }

    @Test(arguments: ["120", "121", "122", "181"])
    func aFailedGatewayVoidIsInDoubtNotRetryable(code: String) async throws {
        #expect(AuthorizeNetCodes.outcome(responseCode: "3", reasonCode: code) == .inDoubt(reason: "gateway_void_failed"))
        #expect(AuthorizeNetCodes.outcome(responseCode: "2", reasonCode: code) == .inDoubt(reason: "gateway_void_failed"))
        try await withAuthorizeNetFake { _, gateway in
            let amount = F.money((Int64(code) ?? 0) * 100)
            let result = await gateway.sale(F.charge("k\(code)", reference: "INV-V\(code)", amount: amount, card: F.card("4222222222222")))
            #expect(result.outcome == .inDoubt(reason: "gateway_void_failed"))
        }
    }

    @Test func otherProcessingErrorsStayRetryable() {
        #expect(AuthorizeNetCodes.outcome(responseCode: "3", reasonCode: "19") == .error(code: "processing_error", retryable: true))
        #expect(AuthorizeNetCodes.outcome(responseCode: "2", reasonCode: "2") == .declined(code: "generic_decline", category: .soft))
    }
}
