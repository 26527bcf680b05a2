import Foundation
@testable import GatewayFakes
import Payments
import Testing
import Vault

@Suite struct SandboxGatewayTests {
    typealias F = GatewayFixtures

    @Test(arguments: SandboxTestCard.allCases)
    func testCardsAnswerTheirDocumentedOutcome(_ testCard: SandboxTestCard) async throws {
        let sandbox = SandboxGateway()
        let result = await sandbox.sale(F.charge("key-\(testCard)", reference: "ref-\(testCard)", card: F.card(testCard.number)))
        switch testCard {
        case .approved: #expect(result.outcome == .approved)
        case .cardDeclined: #expect(result.outcome == .declined(code: "card_declined", category: .hard))
        case .insufficientFunds: #expect(result.outcome == .declined(code: "insufficient_funds", category: .soft))
        case .expiredCard: #expect(result.outcome == .declined(code: "expired_card", category: .hard))
        case .processingError: #expect(result.outcome == .declined(code: "processing_error", category: .soft))
        case .permanentError: #expect(result.outcome == .declined(code: "invalid_request", category: .error))
        case .rateLimited:
            #expect(result.outcome == .error(code: "rate_limited", retryable: true))
            #expect(result.retryAfter == .seconds(1))
        case .heldForReview: #expect(result.outcome == .inDoubt(reason: "held_for_review"))
        case .answerLostAfterCharging, .answerLostBeforeCharging, .answerLostRecordsUnsearchable:
            #expect(result.outcome == .inDoubt(reason: "timeout"))
        case .processorTimeout: #expect(result.outcome == .error(code: "processor_timeout", retryable: true))
        }
        let recording: [SandboxTestCard] = [.approved, .cardDeclined, .insufficientFunds, .expiredCard, .processingError,
                                            .heldForReview, .answerLostAfterCharging, .answerLostRecordsUnsearchable]
        #expect(try await sandbox.transactionCount == (recording.contains(testCard) ? 1 : 0))
    }

    @Test func testCardNumbersAreLuhnValidAndDistinct() {
        let numbers = SandboxTestCard.allCases.map(\.number)
        #expect(Set(numbers).count == numbers.count)
        for number in numbers {
            let sum = number.reversed().enumerated().reduce(0) { sum, digit in
                let value = Int(String(digit.element)) ?? 0
                return sum + (digit.offset % 2 == 1 ? (value * 2 > 9 ? value * 2 - 9 : value * 2) : value)
            }
            #expect(number.count == 16 && sum % 10 == 0, "\(number.suffix(4)) is not a valid card number")
        }
    }

    @Test(arguments: ["5555555555554444", "378282246310005", "4111111111111111", "6011111111111117"])
    func anyOtherValidCardApproves(_ number: String) async throws {
        let result = await SandboxGateway().authorize(F.charge("k", reference: "r", card: F.card(number)))
        #expect(result.outcome == .approved)
        #expect(result.authCode?.count == 6)
    }

    @Test func sameIdempotencyKeyAnswersTheSameResultWithoutASecondCharge() async throws {
        let sandbox = SandboxGateway()
        let request = F.charge("step-1-attempt-1", reference: "INV-1")
        let first = await sandbox.sale(request)
        let second = await sandbox.sale(request)
        #expect(first.outcome == .approved)
        #expect(second == first)
        #expect(try await sandbox.transactionCount == 1)
    }

    @Test func sameKeyForADifferentRequestIsRefused() async throws {
        let sandbox = SandboxGateway()
        _ = await sandbox.sale(F.charge("k1", reference: "INV-1", amount: F.money(1_000)))
        let reused = await sandbox.sale(F.charge("k1", reference: "INV-1", amount: F.money(2_000)))
        #expect(reused.outcome == .error(code: "idempotency_key_reused", retryable: false))
        #expect(try await sandbox.transactionCount == 1)
    }

    @Test func concurrentCallsWithOneKeyChargeOnce() async throws {
        let sandbox = SandboxGateway()
        let request = F.charge("concurrent", reference: "INV-C")
        let results = await withTaskGroup(of: GatewayResult.self) { group in
            for _ in 0..<20 { group.addTask { await sandbox.sale(request) } }
            return await group.reduce(into: [GatewayResult]()) { $0.append($1) }
        }
        #expect(Set(results.compactMap(\.transactionID)).count == 1)
        #expect(try await sandbox.transactionCount == 1)
    }

    @Test func captureIsLimitedToTheAuthorizedAmountAndHappensOnce() async throws {
        let sandbox = SandboxGateway()
        let auth = await sandbox.authorize(F.charge("a", reference: "INV-A", amount: F.money(5_000)))
        let tooMuch = await sandbox.capture(F.followUp("c1", reference: "INV-A", transactionID: auth.transactionID,
                                                       amount: F.money(5_001)))
        #expect(tooMuch.outcome == .error(code: "amount_exceeds_authorized", retryable: false))
        let partial = await sandbox.capture(F.followUp("c2", reference: "INV-A", transactionID: auth.transactionID,
                                                       amount: F.money(3_000)))
        #expect(partial.outcome == .approved)
        #expect(partial.transactionID == auth.transactionID)
        let again = await sandbox.capture(F.followUp("c3", reference: "INV-A", transactionID: auth.transactionID))
        #expect(again.outcome == .error(code: "already_captured", retryable: false))
        #expect(try await sandbox.transaction(id: auth.transactionID ?? "")?.captured == F.money(3_000))
    }

    @Test func refundsNeverExceedWhatWasCapturedAndNotYetRefunded() async throws {
        let sandbox = SandboxGateway()
        let sale = await sandbox.sale(F.charge("s", reference: "INV-S", amount: F.money(10_000)))
        let first = await sandbox.refund(F.followUp("r1", reference: "RF-1", transactionID: sale.transactionID,
                                                    amount: F.money(6_000)))
        #expect(first.outcome == .approved)
        #expect(first.transactionID != sale.transactionID)
        let over = await sandbox.refund(F.followUp("r2", reference: "RF-2", transactionID: sale.transactionID,
                                                   amount: F.money(4_001)))
        #expect(over.outcome == .error(code: "amount_exceeds_refundable", retryable: false))
        let rest = await sandbox.refund(F.followUp("r3", reference: "RF-3", transactionID: sale.transactionID))
        #expect(rest.outcome == .approved)
        #expect(try await sandbox.transaction(id: rest.transactionID ?? "")?.authorized == F.money(4_000))
        let nothingLeft = await sandbox.refund(F.followUp("r4", reference: "RF-4", transactionID: sale.transactionID))
        #expect(nothingLeft.outcome == .error(code: "amount_exceeds_refundable", retryable: false))
    }

    @Test func aRefundedTransactionCannotBeVoided() async throws {
        let sandbox = SandboxGateway()
        let sale = await sandbox.sale(F.charge("s", reference: "INV-V"))
        _ = await sandbox.refund(F.followUp("r", reference: "RF-V", transactionID: sale.transactionID, amount: F.money(100)))
        let void = await sandbox.void(F.followUp("v", reference: "INV-V", transactionID: sale.transactionID))
        #expect(void.outcome == .error(code: "transaction_refunded", retryable: false))
    }

    @Test func aVoidedAuthorizationCannotBeCapturedOrRefunded() async throws {
        let sandbox = SandboxGateway()
        let auth = await sandbox.authorize(F.charge("a", reference: "INV-X"))
        #expect(await sandbox.void(F.followUp("v", reference: "INV-X", transactionID: auth.transactionID)).outcome == .approved)
        let capture = await sandbox.capture(F.followUp("c", reference: "INV-X", transactionID: auth.transactionID))
        #expect(capture.outcome == .error(code: "transaction_voided", retryable: false))
        let refund = await sandbox.refund(F.followUp("r", reference: "INV-X", transactionID: auth.transactionID))
        #expect(refund.outcome == .error(code: "transaction_voided", retryable: false))
    }

    @Test func followUpsOnUnknownOrDeclinedTransactionsFail() async throws {
        let sandbox = SandboxGateway()
        let declined = await sandbox.authorize(F.charge("d", reference: "INV-D", card: F.card(SandboxTestCard.cardDeclined.number)))
        for transactionID in ["sbx_unknown", declined.transactionID ?? ""] {
            let capture = await sandbox.capture(F.followUp("c-\(transactionID)", reference: "INV-D", transactionID: transactionID))
            #expect(capture.outcome == .error(code: "transaction_not_found", retryable: false))
        }
    }

    @Test func verifyTakesAZeroAmountAndHoldsNothing() async throws {
        let sandbox = SandboxGateway()
        let ok = await sandbox.verify(F.charge("v", reference: "VER-1", amount: F.money(0), card: F.card(cvv: "123")))
        #expect(ok.outcome == .approved)
        #expect(ok.cvvResult == "M")
        #expect(try await sandbox.transaction(id: ok.transactionID ?? "")?.authorized == F.money(0))
        let declined = await sandbox.verify(F.charge("v2", reference: "VER-2", amount: F.money(0),
                                                     card: F.card(SandboxTestCard.expiredCard.number)))
        #expect(declined.outcome == .declined(code: "expired_card", category: .hard))
    }

    @Test func salesNeedAPositiveAmount() async throws {
        let result = await SandboxGateway().sale(F.charge("z", reference: "INV-Z", amount: F.money(0)))
        #expect(result.outcome == .error(code: "invalid_amount", retryable: false))
    }

    @Test func lookupFindsAChargeByReferenceOrTransactionID() async throws {
        let sandbox = SandboxGateway()
        let sale = await sandbox.sale(F.charge("k", reference: "INV-L"))
        #expect(await sandbox.lookup(reference: "INV-L", gatewayTransactionID: nil) == .found(sale))
        #expect(await sandbox.lookup(reference: "other", gatewayTransactionID: sale.transactionID) == .found(sale))
        #expect(await sandbox.lookup(reference: "INV-missing", gatewayTransactionID: nil) == .notFound)
    }

    @Test func aLostAnswerIsInDoubtAndSettledByLookupWithoutASecondCharge() async throws {
        let sandbox = SandboxGateway(behaviour: .init(failures: [.timeoutAfterProcessing]))
        let request = F.charge("lost", reference: "INV-LOST")
        let first = await sandbox.sale(request)
        #expect(first.outcome == .inDoubt(reason: "timeout"))
        guard case let .found(found) = await sandbox.lookup(reference: "INV-LOST", gatewayTransactionID: nil) else {
            Issue.record("the processed charge was not found")
            return
        }
        #expect(found.outcome == .approved)
        let retried = await sandbox.sale(request)
        #expect(retried == found)
        #expect(try await sandbox.transactionCount == 1)
    }

    @Test func aTimeoutBeforeProcessingIsInDoubtAndLookupFindsNothing() async throws {
        let sandbox = SandboxGateway()
        sandbox.injectFailures([.timeoutBeforeProcessing])
        let result = await sandbox.sale(F.charge("early", reference: "INV-EARLY"))
        #expect(result.outcome == .inDoubt(reason: "timeout"))
        #expect(await sandbox.lookup(reference: "INV-EARLY", gatewayTransactionID: nil) == .notFound)
        #expect(try await sandbox.transactionCount == 0)
    }

    @Test func injectedServerErrorIsRetryableAndChargesNothing() async throws {
        let sandbox = SandboxGateway(behaviour: .init(failures: [.serverError]))
        let request = F.charge("5xx", reference: "INV-5XX")
        #expect(await sandbox.sale(request).outcome == .error(code: "gateway_unavailable", retryable: true))
        #expect(try await sandbox.transactionCount == 0)
        #expect(await sandbox.sale(request).outcome == .approved)
    }

    @Test func garbledAnswerIsInDoubtButRecorded() async throws {
        let sandbox = SandboxGateway(behaviour: .init(failures: [.garbledResponse]))
        #expect(await sandbox.sale(F.charge("g", reference: "INV-G")).outcome == .inDoubt(reason: "unreadable_response"))
        #expect(try await sandbox.transactions(reference: "INV-G").count == 1)
    }

    @Test func failureRuleTargetsOneReference() async throws {
        let sandbox = SandboxGateway(behaviour: .init(failureRule: { call in
            call.reference == "INV-BAD" ? .serverError : nil
        }))
        #expect(await sandbox.sale(F.charge("a", reference: "INV-OK")).outcome == .approved)
        #expect(await sandbox.sale(F.charge("b", reference: "INV-BAD")).outcome == .error(code: "gateway_unavailable", retryable: true))
    }

    @Test func latencyDelaysButDoesNotChangeTheAnswer() async throws {
        let sandbox = SandboxGateway(behaviour: .init(latency: .milliseconds(5)))
        #expect(await sandbox.sale(F.charge("slow", reference: "INV-SLOW")).outcome == .approved)
        #expect(sandbox.behaviour.latency == .milliseconds(5))
    }

    @Test func retentionBoundsMemory() async throws {
        let sandbox = SandboxGateway(behaviour: .init(retention: 2))
        for index in 0..<5 {
            _ = await sandbox.sale(F.charge("k\(index)", reference: "INV-\(index)"))
        }
        #expect(try await sandbox.transactionCount == 2)
        // Forgotten is not absent: a look-up that finds nothing can prove nothing any more.
        #expect(await sandbox.lookup(reference: "INV-0", gatewayTransactionID: nil) == .unavailable("sandbox_ledger_forgot_older_records"))
        #expect(await sandbox.lookup(reference: "INV-4", gatewayTransactionID: nil) != .notFound)
    }

    /// A transaction's id starts with the milliseconds it was made at, so a ledger's new rows land
    /// in the last pages of its index on ids; a retried key still answers its first id.
    @Test func transactionIDsStartWithTheTimeTheyWereMadeAndAKeyAnswersItsFirstID() async throws {
        let sandbox = SandboxGateway()
        let before = UInt64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let first = await sandbox.sale(F.charge("same-key", reference: "INV-1"))
        let after = UInt64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let id = try #require(first.transactionID)
        #expect(id.hasPrefix("sbx_"))
        let made = try Encoding.fromBase32(String(id.dropFirst(4))).prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect((before...after).contains(made))
        let again = await sandbox.sale(F.charge("same-key", reference: "INV-1"))
        #expect(again.transactionID == id)
        #expect(again.authCode == first.authCode)
        let other = await sandbox.sale(F.charge("other-key", reference: "INV-2"))
        #expect(other.transactionID != id)
    }

    @Test func aChargeWhoseRecordsCannotBeSearchedIsNeverFoundNorProvenAbsent() async throws {
        let sandbox = SandboxGateway()
        let card = SandboxTestCard.answerLostRecordsUnsearchable
        let result = await sandbox.sale(F.charge("key-u", reference: "ref-u", card: F.card(card.number)))
        #expect(result.outcome == .inDoubt(reason: "timeout"))
        #expect(try await sandbox.transactionCount == 1, "the card was charged")
        #expect(await sandbox.lookup(reference: "ref-u", gatewayTransactionID: nil) == .unavailable("sandbox_records_unavailable"))
        #expect(await sandbox.lookup(GatewayLookupQuery(reference: "ref-u", since: Date())) == .unavailable("sandbox_records_unavailable"))
    }
}
