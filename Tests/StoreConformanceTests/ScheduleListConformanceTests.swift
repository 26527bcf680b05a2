import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault

/// The schedule list filtered by card (`ScheduleStore.schedules(merchantID:status:secureCardReference:afterSequence:limit:)`),
/// which a card's page and `GET /v1/schedules?secureCardReference=` read: only that card's schedules
/// of that merchant, in creation order, a page at a time, with the status filter on top; the same on
/// every engine.
@Suite("Store conformance: a card's schedules")
struct ScheduleListConformanceTests {
    /// Stores an active one-step schedule of `merchantID` charging `card`; returns its id.
    @discardableResult
    static func schedule(on card: String, merchantID: String, status: ScheduleStatus = .active, fixture: StoreFixture) async throws -> String {
        let id = "sch_\(UInt64.random(in: 0...UInt64.max))"
        let now = Date()
        let schedule = Schedule(
            id: id, merchantID: merchantID, secureCardReference: card, status: status, plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-02"]),
            amount: 1000, currency: try Currency(code: "EUR"), description: nil, externalID: nil, receiptEmail: nil, receiptPhone: nil,
            materializedThrough: nil, createdAt: now, updatedAt: now, confirmedAt: now, expiresAt: nil, pausedAt: nil, sequence: 0)
        let step = ScheduleStep(
            id: "stp_\(UInt64.random(in: 0...UInt64.max))", scheduleID: id, sequence: 1, date: CivilDate(iso: "2027-03-02")!,
            dueAt: now.addingTimeInterval(86_400), amount: 1000, currency: try Currency(code: "EUR"), status: .scheduled, attempts: 0, nextAttemptAt: nil)
        try await fixture.store.insertSchedule(
            schedule, steps: [step],
            audit: AuditEntry(merchantID: merchantID, actor: "test", action: "schedule.created", objectType: "schedule", objectID: id))
        return id
    }

    static func register(_ reference: String, merchant: Merchant, fixture: StoreFixture) async throws -> SecureCard {
        try await fixture.cards.register(
            SecureCardRegistration(
                merchantReference: reference, source: CardSource(method: "ocr", card: CardInput(number: "5555555555554444", expiryDate: "1230")),
                verify: false),
            merchant: merchant, actor: "test", now: Date())
    }

    @Test func aCardsSchedulesAreListedInCreationOrderAPageAtATimeAndNoOtherCardsOrMerchants() async throws {
        let fixture = try await StoreFixture()
        let other = try await Self.register("ref-2", merchant: fixture.merchant, fixture: fixture)
        let merchantB = try await fixture.merchants.create(
            name: "m2", role: .admin, settings: .init(callbackURL: nil, verifyOnRegistration: false), actor: "test"
        ).merchant
        let cardB = try await Self.register("ref-b", merchant: merchantB, fixture: fixture)
        var mine: [String] = []
        for index in 0..<5 {
            mine.append(try await Self.schedule(on: fixture.card.reference, merchantID: fixture.merchantID, status: index == 2 ? .paused : .active, fixture: fixture))
            try await Self.schedule(on: other.reference, merchantID: fixture.merchantID, fixture: fixture)
            try await Self.schedule(on: cardB.reference, merchantID: merchantB.id, fixture: fixture)
        }
        let store = fixture.store
        let all = try await store.schedules(merchantID: fixture.merchantID, status: nil, secureCardReference: fixture.card.reference, afterSequence: nil, limit: 50)
        #expect(all.map(\.id) == mine)
        #expect(all.allSatisfy { $0.secureCardReference == fixture.card.reference && $0.merchantID == fixture.merchantID })
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sequence < $1.sequence })

        let first = try await store.schedules(merchantID: fixture.merchantID, status: nil, secureCardReference: fixture.card.reference, afterSequence: nil, limit: 2)
        let second = try await store.schedules(
            merchantID: fixture.merchantID, status: nil, secureCardReference: fixture.card.reference, afterSequence: first.last?.sequence, limit: 2)
        let third = try await store.schedules(
            merchantID: fixture.merchantID, status: nil, secureCardReference: fixture.card.reference, afterSequence: second.last?.sequence, limit: 2)
        #expect((first + second + third).map(\.id) == mine, "paging by sequence skips and repeats nothing")
        #expect(third.count == 1)

        let paused = try await store.schedules(merchantID: fixture.merchantID, status: .paused, secureCardReference: fixture.card.reference, afterSequence: nil, limit: 50)
        #expect(paused.map(\.id) == [mine[2]])
        #expect(try await store.schedules(merchantID: fixture.merchantID, status: nil, secureCardReference: nil, afterSequence: nil, limit: 50).count == 10)
        #expect(
            try await store.schedules(merchantID: fixture.merchantID, status: nil, secureCardReference: cardB.reference, afterSequence: nil, limit: 50).isEmpty,
            "another merchant's card lists nothing under this merchant")
        #expect(try await store.schedules(merchantID: fixture.merchantID, status: nil, secureCardReference: "sc_unknown", afterSequence: nil, limit: 50).isEmpty)
    }
}
