import Foundation
import HTTPTypes
import Payments
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A void is a reversal, allowed only within the reversal window after the authorization
/// (`reversals.windowHours`, 24 by default); later it is a 409 `reversal_window_passed` that points
/// to a refund, and the gateway is not called.
@Suite struct ReversalWindowTests {
    /// Whole seconds: stored timestamps keep milliseconds, so a sub-millisecond instant would move.
    static let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    static func payment(_ type: String, fixture: APIFixture, at now: Date) async throws -> Transaction {
        // The same sale twice within minutes: not a duplicate here (`allowDuplicate`).
        let body = TransactionRoutesTests.rawSale(amount: 5000, type: type, extra: #", "allowDuplicate": true"#)
        let request = try JSONDecoder().decode(TransactionRequest.self, from: Data(body.utf8)).validated(for: fixture.merchantA)
        return try await fixture.runtime.transactions.create(request, merchant: fixture.merchantA, actor: "test", now: now)
    }

    static func expectWindowPassed(_ body: () async throws -> Transaction, refund id: String) async {
        do {
            _ = try await body()
            Issue.record("the void was allowed")
        } catch TransactionError.notAllowed(let code, let message) {
            #expect(code == "reversal_window_passed")
            #expect(message.contains("24 hours") || message.contains("1 hour"), "\(message)")
            #expect(message.contains("/v1/transactions/\(id)/refund"), "\(message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aSaleIsVoidedWithinTwentyFourHoursAndRefusedAfter() async throws {
        let fixture = try await APIFixture()
        let early = try await Self.payment("sale", fixture: fixture, at: Self.t0)
        let voided = try await fixture.runtime.transactions.void(
            id: early.id, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(24 * 3600 - 1))
        #expect(voided.status == .approved)

        let late = try await Self.payment("sale", fixture: fixture, at: Self.t0)
        let before = try await fixture.count("transactions")
        await Self.expectWindowPassed({
            try await fixture.runtime.transactions.void(id: late.id, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(24 * 3600))
        }, refund: late.id)
        #expect(try await fixture.count("transactions") == before)
        let refund = try await fixture.runtime.transactions.refund(
            id: late.id, amount: nil, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(25 * 3600))
        #expect(refund.status == .approved)
    }

    @Test func aCapturesWindowRunsFromItsAuthorization() async throws {
        let fixture = try await APIFixture()
        let authorization = try await Self.payment("authorize", fixture: fixture, at: Self.t0)
        let capture = try await fixture.runtime.transactions.capture(
            id: authorization.id, amount: nil, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(23 * 3600))
        await Self.expectWindowPassed({
            try await fixture.runtime.transactions.void(
                id: capture.id, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(24 * 3600 + 60))
        }, refund: authorization.id)
    }

    @Test func theWindowIsConfigurable() async throws {
        let directory = TemporaryDirectory()
        try "reversals:\n  windowHours: 1\n".write(toFile: directory.file("vault.yaml"), atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: directory.file("vault.yaml"), environment: [:])
        #expect(loaded.reversalWindowHours == 1)
        #expect(VaultConfiguration().reversalWindowHours == 24)
        for bad in ["reversals:\n  windowHours: 0\n", "reversals:\n  windowHours: 721\n", "reversals:\n  window: 2\n"] {
            try bad.write(toFile: directory.file("bad.yaml"), atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: directory.file("bad.yaml"), environment: [:]) }
        }

        let fixture = try await APIFixture { $0.reversalWindowHours = 1 }
        let sale = try await Self.payment("sale", fixture: fixture, at: Self.t0)
        await Self.expectWindowPassed({
            try await fixture.runtime.transactions.void(id: sale.id, merchant: fixture.merchantA, actor: "test", now: Self.t0.addingTimeInterval(3600))
        }, refund: sale.id)
    }

    @Test func anOverdueVoidIsA409OverHTTP() throws {
        let error = TransactionError.notAllowed(code: "reversal_window_passed", message: "refund it instead")
        #expect(error.apiError.status == .conflict)
        #expect(error.apiError.code == "reversal_window_passed")
    }
}
