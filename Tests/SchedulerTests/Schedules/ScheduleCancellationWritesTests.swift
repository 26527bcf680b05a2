import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// The schedules a card's deletion cancels and the schedules that expire unconfirmed move as the
/// scheduler's transitions say, on either engine: only open schedules, with the steps named, and
/// one audit event each.
@Suite struct ScheduleCancellationWritesTests {
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!

    func auditActions(_ fixture: ChargingFixture, objectID: String) async throws -> [String] {
        try await fixture.database.sql.query("SELECT action, actor FROM audit_events WHERE object_id = \(objectID) ORDER BY seq")
            .map { try $0.string("action") + " by " + $0.string("actor") }
    }

    @Test func deletingACardCancelsItsOpenSchedulesAndTheirWaitingStepsButNotAStepBeingCharged() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.registered)
        let charging = try await fixture.schedule(
            card, amount: 1000, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.registered)
        let unconfirmed = try await fixture.schedules.create(
            NewSchedule(secureCardReference: card.reference, amount: 500, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-09")),
            merchant: merchant, actor: "test", now: Self.registered)
        // The first schedule's step is being charged: claimed and its attempt written.
        let now = Date()
        let due = try #require(try await fixture.store.claimDueSteps(
            asOf: ChargingFixture.endOfDay("2027-03-02"), merchantID: nil, owner: "runner", now: now, leaseUntil: now.addingTimeInterval(300),
            limit: 10, isOwnerGone: { _ in false }).first)
        var attempt = ChargeWritesTests.attempt(due, merchant: merchant)
        attempt.leaseOwner = "runner"
        #expect(try await fixture.store.recordAttempts([attempt]).allSatisfy { $0 == nil })

        let cancelled = try await fixture.store.deleteSecureCard(
            SecureCardDeletion(
                merchantID: merchant.id, reference: card.reference, purge: false,
                audit: AuditEntry(merchantID: merchant.id, actor: "operator", action: "secure_card.deleted", objectType: "secure_card",
                                  objectID: card.reference),
                at: Date()),
            cancelSchedules: true)
        #expect(cancelled == [charging.schedule.id, unconfirmed.schedule.id])
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: charging.schedule.id)?.status == .cancelled)
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: unconfirmed.schedule.id)?.status == .cancelled)
        #expect(try await fixture.steps(charging.schedule.id).map(\.status) == [.processing])
        #expect(try await fixture.steps(unconfirmed.schedule.id).map(\.status) == [.cancelled])
        #expect(try await auditActions(fixture, objectID: charging.schedule.id).last == "schedule.cancelled by operator")
        #expect(try await auditActions(fixture, objectID: unconfirmed.schedule.id) == ["schedule.created by test", "schedule.cancelled by operator"])
        #expect(try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type LIKE 'schedule.%'") == 0)
    }

    @Test func anUnconfirmedScheduleExpiresWithAllItsStepsCancelledAndAConfirmedOneDoesNot() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.registered)
        let confirmed = try await fixture.schedule(
            card, amount: 1000, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.registered)
        let unconfirmed = try await fixture.schedules.create(
            NewSchedule(secureCardReference: card.reference, amount: 500, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-09")),
            merchant: merchant, actor: "test", now: Self.registered)
        let expired = try await fixture.store.expireUnconfirmedSchedules(now: Self.registered.addingTimeInterval(73 * 3600))
        #expect(expired == [unconfirmed.schedule.id])
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: unconfirmed.schedule.id)?.status == .expired)
        #expect(try await fixture.steps(unconfirmed.schedule.id).map(\.status) == [.cancelled])
        #expect(try await auditActions(fixture, objectID: unconfirmed.schedule.id) == ["schedule.created by test", "schedule.expired by system"])
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: confirmed.schedule.id)?.status == .active)
        #expect(try await fixture.steps(confirmed.schedule.id).map(\.status) == [.scheduled])
        #expect(try await fixture.store.expireUnconfirmedSchedules(now: Self.registered.addingTimeInterval(74 * 3600)).isEmpty)
    }
}
