import Foundation
@testable import GatewayFakes
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultPostgres
@testable import VaultSQLite

/// Two sandboxes over one database, each through its own store, as a server and a runner process
/// (or a server before and after a restart) build theirs: on the run's engine.
final class TwoSandboxes: Sendable {
    let directory = NSTemporaryDirectory() + "sandbox-ledger-" + UUID().uuidString
    let database: TestDatabase
    let otherStore: any VaultStorage
    /// The sandbox of the first process.
    let first: SandboxGateway
    /// The sandbox of the second process, over another store on the same database.
    let second: SandboxGateway

    init() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try await TestDatabase(path: directory + "/vault.sqlite")
        otherStore = try await database.openAnother()
        first = SandboxGateway(ledger: try #require(database.storage as? any SandboxLedgerStore))
        second = SandboxGateway(ledger: try #require(otherStore as? any SandboxLedgerStore))
    }

    deinit {
        TestDatabase.close(otherStore)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The sandbox's ledger kept in the database: what one process did is what another sees.
@Suite struct SandboxLedgerStoreTests {
    typealias F = GatewayFixtures

    @Test func aChargeMadeByOneSandboxIsRefundedCapturedVoidedAndFoundByAnother() async throws {
        let sandboxes = try await TwoSandboxes()
        let (first, second) = (sandboxes.first, sandboxes.second)
        let sale = await first.sale(F.charge("sale-1", reference: "INV-1", amount: F.money(10_000)))
        let authorization = await first.authorize(F.charge("auth-1", reference: "INV-2", amount: F.money(5_000)))
        let other = await first.sale(F.charge("sale-2", reference: "INV-3", amount: F.money(2_500)))
        #expect(sale.isApproved && authorization.isApproved && other.isApproved)

        #expect(await second.lookup(reference: "INV-1", gatewayTransactionID: nil) == .found(sale))
        let refund = await second.refund(F.followUp("refund-1", reference: "RF-1", transactionID: sale.transactionID,
                                                    amount: F.money(4_000)))
        #expect(refund.outcome == .approved)
        let capture = await second.capture(F.followUp("capture-1", reference: "CP-1", transactionID: authorization.transactionID,
                                                      amount: F.money(3_000)))
        #expect(capture.outcome == .approved)
        let void = await second.void(F.followUp("void-1", reference: "VD-1", transactionID: other.transactionID))
        #expect(void.outcome == .approved)

        #expect(try await first.transaction(id: sale.transactionID ?? "")?.refunded == F.money(4_000))
        #expect(try await first.transaction(id: authorization.transactionID ?? "")?.captured == F.money(3_000))
        #expect(try await first.transaction(id: other.transactionID ?? "")?.voided == true)
        let over = await first.refund(F.followUp("refund-2", reference: "RF-2", transactionID: sale.transactionID,
                                                 amount: F.money(6_001)))
        #expect(over.outcome == .error(code: "amount_exceeds_refundable", retryable: false))
        #expect(try await first.transactionCount == 4)
    }

    @Test func everyLookUpKindAnswersFromTheStoredLedger() async throws {
        let sandboxes = try await TwoSandboxes()
        let (first, second) = (sandboxes.first, sandboxes.second)
        let since = Date()
        let sale = await first.sale(F.charge("sale", reference: "INV-L", amount: F.money(10_000)))
        let authorization = await first.authorize(F.charge("auth", reference: "INV-A", amount: F.money(5_000)))
        let toVoid = await first.sale(F.charge("sale-v", reference: "INV-V", amount: F.money(700)))
        let saleID = try #require(sale.transactionID)
        let authorizationID = try #require(authorization.transactionID)
        let toVoidID = try #require(toVoid.transactionID)
        let refund = await first.refund(F.followUp("refund", reference: "RF-L", transactionID: saleID, amount: F.money(1_500)))
        let capture = await first.capture(F.followUp("capture", reference: "CP-A", transactionID: authorizationID,
                                                     amount: F.money(5_000)))
        let void = await first.void(F.followUp("void", reference: "VD-V", transactionID: toVoidID))
        let refused = await first.capture(F.followUp("capture-again", reference: "CP-A2", transactionID: authorizationID,
                                                     amount: F.money(5_000)))
        #expect(refused.outcome == .error(code: "already_captured", retryable: false))

        func lookup(_ reference: String, _ kind: GatewayLookupQuery.Kind, id: String? = nil) async -> GatewayLookup {
            await second.lookup(GatewayLookupQuery(reference: reference, gatewayTransactionID: id, since: since, kind: kind))
        }
        #expect(await lookup("INV-L", .charge) == .found(sale))
        #expect(await lookup("anything", .charge, id: saleID) == .found(sale))
        #expect(await lookup("RF-L", .refund(parentTransactionID: saleID, amount: F.money(1_500))) == .found(refund))
        #expect(await lookup("RF-L", .refund(parentTransactionID: saleID, amount: nil)) == .found(refund))
        #expect(await lookup("CP-A", .capture(parentTransactionID: authorizationID, amount: F.money(5_000))) == .found(capture))
        #expect(await lookup("VD-V", .void(parentTransactionID: toVoidID)) == .found(void))

        // Proof of absence: never sent, sent on another transaction, or refused (nothing changed).
        #expect(await lookup("INV-never", .charge) == .notFound)
        #expect(await lookup("RF-L", .refund(parentTransactionID: saleID, amount: F.money(1_499))) == .notFound)
        #expect(await lookup("RF-never", .refund(parentTransactionID: saleID, amount: nil)) == .notFound)
        #expect(await lookup("CP-A2", .capture(parentTransactionID: authorizationID, amount: F.money(5_000))) == .notFound)
        #expect(await lookup("CP-A", .capture(parentTransactionID: saleID, amount: F.money(5_000))) == .notFound)
        #expect(await lookup("VD-never", .void(parentTransactionID: saleID)) == .notFound)
    }

    @Test func theSameKeyAtAnotherSandboxAnswersTheFirstResultWithoutChargingAgain() async throws {
        let sandboxes = try await TwoSandboxes()
        let request = F.charge("step-1-attempt-1", reference: "INV-K", amount: F.money(1_000))
        let first = await sandboxes.first.sale(request)
        let again = await sandboxes.second.sale(request)
        #expect(first.isApproved)
        #expect(again == first)
        let otherAmount = await sandboxes.second.sale(F.charge("step-1-attempt-1", reference: "INV-K", amount: F.money(2_000)))
        #expect(otherAmount.outcome == .error(code: "idempotency_key_reused", retryable: false))
        let refund = F.followUp("refund-k", reference: "RF-K", transactionID: first.transactionID, amount: F.money(300))
        let refunded = await sandboxes.first.refund(refund)
        #expect(await sandboxes.second.refund(refund) == refunded)
        #expect(try await sandboxes.first.transaction(id: first.transactionID ?? "")?.refunded == F.money(300))
        #expect(try await sandboxes.second.transactionCount == 2)
    }

    @Test func concurrentCallsWithOneKeyThroughTwoStoresChargeOnce() async throws {
        let sandboxes = try await TwoSandboxes()
        let request = F.charge("concurrent", reference: "INV-C")
        let results = await withTaskGroup(of: GatewayResult.self) { group in
            for index in 0..<12 {
                let sandbox = index.isMultiple(of: 2) ? sandboxes.first : sandboxes.second
                group.addTask { await sandbox.sale(request) }
            }
            return await group.reduce(into: [GatewayResult]()) { $0.append($1) }
        }
        #expect(results.first?.isApproved == true)
        #expect(results.allSatisfy { $0 == results.first })
        #expect(try await sandboxes.first.transactionCount == 1)
    }

    /// New charges made while the ledger's writes are held gather into one shared write; the one
    /// the database refuses fails alone (answered in doubt, nothing of it kept) and the others of
    /// its write are recorded, each once, a key sent twice answered from its one call.
    @Test func newChargesGatheredIntoOneWriteFailAloneAndAreEachRecordedOnce() async throws {
        let sandboxes = try await TwoSandboxes()
        let storage = sandboxes.database.storage
        func unanswered() -> Int {
            (storage as? SQLiteStore)?.sandboxCharges.unansweredCount ?? (storage as? PostgresStore)?.sandboxCharges.unansweredCount ?? 0
        }
        try await sandboxes.database.refuse("refuse_call", "INSERT ON sandbox_calls", when: "NEW.idempotency_key = 'refused'")
        let hold = try await sandboxes.database.holdWrites(to: "sandbox_calls")
        let calls = Task {
            try await withThrowingTaskGroup(of: (String, GatewayResult).self) { group in
                func send(_ key: String) {
                    group.addTask { (key, await sandboxes.first.sale(F.charge(key, reference: "INV-" + key, amount: F.money(1_000)))) }
                }
                // At most two writes are taken while the ledger is held; everything sent after
                // these ten waits, and the next write takes it all at once.
                for index in 0..<10 { send("early-\(index)") }
                try await waitUntil { unanswered() == 10 }
                send("refused")
                for index in 0..<10 { send("late-\(index)") }
                send("late-0")
                try await waitUntil { unanswered() == 22 }
                return try await group.reduce(into: [(String, GatewayResult)]()) { $0.append($1) }
            }
        }
        try await waitUntil { unanswered() == 22 }
        try await hold.release()
        let results = try await calls.value
        #expect(results.count == 22)
        for (key, result) in results {
            if key == "refused" {
                #expect(result.outcome == .inDoubt(reason: "sandbox_ledger_unavailable"))
            } else {
                #expect(result.isApproved)
            }
        }
        let lateZero = results.filter { $0.0 == "late-0" }.map(\.1)
        #expect(lateZero.count == 2 && lateZero[0] == lateZero[1])
        #expect(try await sandboxes.first.transactionCount == 20)
        #expect(try await sandboxes.second.transactions(reference: "INV-refused").isEmpty)
    }

    @Test func concurrentChargesOfOneKeyWithTwoAmountsChargeOnceAndRefuseTheOtherAmount() async throws {
        let sandboxes = try await TwoSandboxes()
        let amounts: [Int64] = [1_000, 2_000]
        let results = await withTaskGroup(of: (Int64, GatewayResult).self) { group in
            for index in 0..<12 {
                let sandbox = index.isMultiple(of: 2) ? sandboxes.first : sandboxes.second
                let amount = amounts[(index / 2) % 2]
                let request = F.charge("one-key", reference: "INV-2A", amount: F.money(amount))
                group.addTask { (amount, await sandbox.sale(request)) }
            }
            return await group.reduce(into: [(Int64, GatewayResult)]()) { $0.append($1) }
        }
        let charged = try #require(try await sandboxes.first.transactions(reference: "INV-2A").first)
        #expect(try await sandboxes.second.transactionCount == 1)
        let winner = charged.authorized.minorUnits
        for (amount, result) in results {
            if amount == winner {
                #expect(result.isApproved && result.transactionID == charged.id)
            } else {
                #expect(result.outcome == .error(code: "idempotency_key_reused", retryable: false))
            }
        }
    }

    @Test func aFollowUpAndANewChargeSentAtOnceWithOneKeyAreOneCallAndTheOtherIsRefused() async throws {
        let sandboxes = try await TwoSandboxes()
        let sale = await sandboxes.first.sale(F.charge("sale", reference: "INV-FR", amount: F.money(5_000)))
        let keys = (0..<8).map { "shared-\($0)" }
        let results = await withTaskGroup(of: (key: String, isRefund: Bool, result: GatewayResult).self) { group in
            for key in keys {
                let refund = F.followUp(key, reference: "RF-\(key)", transactionID: sale.transactionID, amount: F.money(100))
                let charge = F.charge(key, reference: "INV-\(key)", amount: F.money(700))
                group.addTask { (key, true, await sandboxes.first.refund(refund)) }
                group.addTask { (key, false, await sandboxes.second.sale(charge)) }
            }
            return await group.reduce(into: [(key: String, isRefund: Bool, result: GatewayResult)]()) { $0.append($1) }
        }
        var refunds = 0
        var charges = 0
        for key in keys {
            let pair = results.filter { $0.key == key }
            let reused = pair.filter { $0.result.outcome == .error(code: "idempotency_key_reused", retryable: false) }
            #expect(pair.count == 2 && reused.count == 1, "\(key): \(pair.map(\.result.outcome))")
            let done = pair.filter { $0.result.isApproved }
            #expect(done.count == 1, "\(key): \(pair.map(\.result.outcome))")
            if done.first?.isRefund == true { refunds += 1 } else { charges += 1 }
        }
        // What the ledger holds is what was answered: the refunds that won, the charges that won.
        #expect(try await sandboxes.second.transaction(id: sale.transactionID ?? "")?.refunded == F.money(100 * Int64(refunds)))
        #expect(try await sandboxes.first.transactionCount == 1 + refunds + charges)
    }

    @Test func concurrentRefundsThroughTwoStoresNeverExceedTheCapturedAmount() async throws {
        let sandboxes = try await TwoSandboxes()
        let sale = await sandboxes.first.sale(F.charge("sale", reference: "INV-R", amount: F.money(1_000)))
        let results = await withTaskGroup(of: GatewayResult.self) { group in
            for index in 0..<8 {
                let sandbox = index.isMultiple(of: 2) ? sandboxes.first : sandboxes.second
                let request = F.followUp("refund-\(index)", reference: "RF-\(index)", transactionID: sale.transactionID,
                                         amount: F.money(300))
                group.addTask { await sandbox.refund(request) }
            }
            return await group.reduce(into: [GatewayResult]()) { $0.append($1) }
        }
        #expect(results.filter(\.isApproved).count == 3)
        #expect(try await sandboxes.second.transaction(id: sale.transactionID ?? "")?.refunded == F.money(900))
    }

    @Test func aPartialVoidReleasesOnlyItsAmount() async throws {
        let sandboxes = try await TwoSandboxes()
        let (first, second) = (sandboxes.first, sandboxes.second)
        #expect(first.supportsPartialVoid)
        let authorization = await first.authorize(F.charge("auth", reference: "INV-P", amount: F.money(5_000)))
        let partial = await second.void(F.followUp("void-1", reference: "VD-1", transactionID: authorization.transactionID,
                                                   amount: F.money(2_000)))
        #expect(partial.outcome == .approved)
        #expect(partial.responseText == "Partially reversed")
        let stored = try await first.transaction(id: authorization.transactionID ?? "")
        #expect(stored?.authorized == F.money(3_000))
        #expect(stored?.reversed == F.money(2_000))
        #expect(stored?.voided == false)
        let tooMuch = await first.capture(F.followUp("capture-1", reference: "CP-1", transactionID: authorization.transactionID,
                                                     amount: F.money(3_001)))
        #expect(tooMuch.outcome == .error(code: "amount_exceeds_authorized", retryable: false))
        let rest = await first.capture(F.followUp("capture-2", reference: "CP-2", transactionID: authorization.transactionID))
        #expect(rest.outcome == .approved)
        #expect(try await second.transaction(id: authorization.transactionID ?? "")?.captured == F.money(3_000))

        let sale = await first.sale(F.charge("sale", reference: "INV-S", amount: F.money(10_000)))
        #expect(await second.void(F.followUp("void-2", reference: "VD-2", transactionID: sale.transactionID,
                                             amount: F.money(4_000))).isApproved)
        let overRefund = await first.refund(F.followUp("refund-1", reference: "RF-1", transactionID: sale.transactionID,
                                                       amount: F.money(6_001)))
        #expect(overRefund.outcome == .error(code: "amount_exceeds_refundable", retryable: false))
        let whole = await second.void(F.followUp("void-3", reference: "VD-3", transactionID: sale.transactionID))
        #expect(whole.responseText == "Voided")
        let voided = try await first.transaction(id: sale.transactionID ?? "")
        #expect(voided?.voided == true)
        #expect(voided?.reversed == F.money(10_000))
    }

    @Test func partialVoidsRefuseBadAmountsAndChangeNothing() async throws {
        let sandboxes = try await TwoSandboxes()
        let sale = await sandboxes.first.sale(F.charge("sale", reference: "INV-B", amount: F.money(1_000)))
        let zero = await sandboxes.second.void(F.followUp("void-0", reference: "VD-0", transactionID: sale.transactionID,
                                                         amount: F.money(0)))
        #expect(zero.outcome == .error(code: "invalid_amount", retryable: false))
        let euros = Money(minorUnits: 100, currency: try Currency(code: "EUR"))
        let currency = await sandboxes.second.void(F.followUp("void-eur", reference: "VD-E", transactionID: sale.transactionID,
                                                             amount: euros))
        #expect(currency.outcome == .error(code: "currency_mismatch", retryable: false))
        let unchanged = try await sandboxes.first.transaction(id: sale.transactionID ?? "")
        #expect(unchanged?.captured == F.money(1_000))
        #expect(unchanged?.reversed == F.money(0))
    }

    @Test func theTestCardsPathsAreSeenTheSameWayByAnotherProcess() async throws {
        let sandboxes = try await TwoSandboxes()
        let (first, second) = (sandboxes.first, sandboxes.second)
        func charge(_ card: SandboxTestCard) async -> GatewayResult {
            await first.sale(F.charge("key-\(card)", reference: "ref-\(card)", card: F.card(card.number)))
        }
        func lookup(_ card: SandboxTestCard) async -> GatewayLookup {
            await second.lookup(reference: "ref-\(card)", gatewayTransactionID: nil)
        }

        let held = await charge(.heldForReview)
        #expect(held.outcome == .inDoubt(reason: "held_for_review"))
        guard case let .found(heldFound) = await lookup(.heldForReview) else {
            Issue.record("the held charge was not found")
            return
        }
        #expect(heldFound.outcome == .inDoubt(reason: "held_for_review"))
        #expect(heldFound.transactionID == held.transactionID)
        let captureHeld = await second.refund(F.followUp("refund-held", reference: "RF-H", transactionID: held.transactionID))
        #expect(captureHeld.outcome == .error(code: "transaction_not_found", retryable: false))

        let lostAfter = await charge(.answerLostAfterCharging)
        #expect(lostAfter.outcome == .inDoubt(reason: "timeout"))
        guard case let .found(charged) = await lookup(.answerLostAfterCharging) else {
            Issue.record("the charge whose answer was lost was not found")
            return
        }
        #expect(charged.outcome == .approved)
        #expect(await second.refund(F.followUp("refund-lost", reference: "RF-L", transactionID: charged.transactionID)).isApproved)

        #expect(await charge(.answerLostBeforeCharging).outcome == .inDoubt(reason: "timeout"))
        #expect(await lookup(.answerLostBeforeCharging) == .notFound)

        let timeout = await charge(.processorTimeout)
        #expect(timeout.outcome == .error(code: "processor_timeout", retryable: true))
        #expect(await lookup(.processorTimeout) == .notFound)

        let limited = await charge(.rateLimited)
        #expect(limited.outcome == .error(code: "rate_limited", retryable: true))
        #expect(limited.retryAfter == .seconds(1))
        #expect(await lookup(.rateLimited) == .notFound)

        let refused = await charge(.permanentError)
        #expect(refused.outcome == .declined(code: "invalid_request", category: .error))
        #expect(await lookup(.permanentError) == .notFound)
        #expect(await second.sale(F.charge("key-\(SandboxTestCard.permanentError)", reference: "ref-\(SandboxTestCard.permanentError)",
                                           card: F.card(SandboxTestCard.permanentError.number))) == refused)

        // held, charged, refund of the charged one
        #expect(try await second.transactionCount == 3)
    }

    @Test func theStoredLedgerHoldsNoCardNumber() async throws {
        let sandboxes = try await TwoSandboxes()
        let number = "5555555555554444"
        let sale = await sandboxes.first.sale(F.charge("leak", reference: "INV-LEAK", card: F.card(number)))
        _ = await sandboxes.second.refund(F.followUp("leak-refund", reference: "RF-LEAK", transactionID: sale.transactionID))
        let rows = try await sandboxes.database.sql.everyRowAsText()
        #expect(rows.contains("INV-LEAK"), "the ledger rows were not read")
        expectAbsent(number, in: rows, "the database")
        expectAbsent(String(number.dropLast(4)), in: rows, "the database")
    }
}
