import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// A migrated store with one merchant and one card, on the engine of the run (`TestEngine.current`).
struct ScheduleFixture {
    struct ApproveAll: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .verified(CardVerificationRecord(status: "verified", gateway: "stub", transactionId: nil, avsResult: nil, cvvResult: nil, verifiedAt: Date()))
        }
    }

    let path = NSTemporaryDirectory() + "schedule-tests-" + UUID().uuidString
    let database: TestDatabase
    let store: any VaultStorage
    let merchant: Merchant
    let card: SecureCard
    let service: ScheduleService

    init(expiry: String = "1230") async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        database = try await TestDatabase(path: path + "/vault.sqlite")
        store = database.storage
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        let merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "Europe/London", defaultGateway: "sandbox", gateways: GatewayCatalogue.merchantRules)
        merchant = try await merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test").merchant
        let cards = SecureCardService(store: store, keyring: keyring, verifier: ApproveAll())
        card = try await cards.register(
            SecureCardRegistration(
                merchantReference: "cust-1", source: CardSource(method: "ocr", card: CardInput(number: "4242424242424242", expiryDate: expiry))),
            merchant: merchant, actor: "test", now: Self.now)
        service = ScheduleService(
            store: store, settings: ScheduleSettings(defaultTime: LocalTime(hour: 9, minute: 0)!, maxStepCount: 100, horizonDays: 60), keyring: keyring)
    }

    /// 2027-01-10 12:00 UTC: "now" for every test here.
    static let now = Date(timeIntervalSince1970: 1_799_582_400)

    func request(_ plan: PlanTerms, amount: Int64 = 1000) -> NewSchedule {
        NewSchedule(secureCardReference: card.reference, amount: amount, currency: "EUR", plan: plan)
    }

    static func weekly(count: Int) -> PlanTerms {
        PlanTerms(type: "weekly", startDate: "2027-01-11", endType: "count", endCount: count, day: 1)
    }
}

@Suite struct ScheduleServiceTests {
    @Test func resumeSkipsStepsThatFellDueWhilePausedUnlessCatchingUp() async throws {
        for catchUp in [false, true] {
            let fixture = try await ScheduleFixture()
            let now = ScheduleFixture.now
            let created = try await fixture.service.create(fixture.request(ScheduleFixture.weekly(count: 4)), merchant: fixture.merchant, actor: "t", now: now)
            _ = try await fixture.service.confirm(id: created.schedule.id, merchant: fixture.merchant, actor: "t", now: now)
            _ = try await fixture.service.pause(id: created.schedule.id, merchant: fixture.merchant, actor: "t", now: now)
            let later = now.addingTimeInterval(16 * 86_400)
            let resumed = try await fixture.service.resume(id: created.schedule.id, catchUp: catchUp, merchant: fixture.merchant, actor: "t", now: later)
            #expect(resumed.schedule.status == .active)
            let expected: [StepStatus] = catchUp ? [.scheduled, .scheduled, .scheduled, .scheduled] : [.skipped, .skipped, .skipped, .scheduled]
            #expect(resumed.steps.map(\.status) == expected)
        }
    }

    @Test func unconfirmedSchedulesExpire() async throws {
        let fixture = try await ScheduleFixture()
        let now = ScheduleFixture.now
        let created = try await fixture.service.create(fixture.request(ScheduleFixture.weekly(count: 2)), merchant: fixture.merchant, actor: "t", now: now)
        #expect(created.schedule.expiresAt == now.addingTimeInterval(72 * 3600))
        let late = now.addingTimeInterval(73 * 3600)
        await #expect(throws: ScheduleError.wrongStatus(current: .expired, operation: "confirm")) {
            _ = try await fixture.service.confirm(id: created.schedule.id, merchant: fixture.merchant, actor: "t", now: late)
        }
        let view = try await fixture.service.get(id: created.schedule.id, merchant: fixture.merchant, now: late)
        #expect(view.steps.allSatisfy { $0.status == .cancelled })
    }

    @Test func skippingTheLastOpenStepCompletesTheSchedule() async throws {
        let fixture = try await ScheduleFixture()
        let now = ScheduleFixture.now
        let created = try await fixture.service.create(
            fixture.request(PlanTerms(type: "delayedOnce", startDate: "2027-02-01")), merchant: fixture.merchant, actor: "t", now: now)
        _ = try await fixture.service.confirm(id: created.schedule.id, merchant: fixture.merchant, actor: "t", now: now)
        let skipped = try await fixture.service.skip(id: created.schedule.id, stepID: created.steps[0].id, merchant: fixture.merchant, actor: "t", now: now)
        #expect(skipped.schedule.status == .completed)
    }

    @Test func openEndedPlansAreMaterializedThroughTheHorizon() async throws {
        let fixture = try await ScheduleFixture()
        let created = try await fixture.service.create(
            fixture.request(PlanTerms(type: "weekly", startDate: "2027-01-11", endType: "never", day: 1)), merchant: fixture.merchant, actor: "t",
            now: ScheduleFixture.now)
        #expect(created.schedule.materializedThrough == CivilDate(iso: "2027-01-10")!.adding(days: 60))
        #expect(created.steps.count == 9)
        #expect(created.steps.last.map { $0.date <= created.schedule.materializedThrough! } == true)
        let stored = try await fixture.store.steps(scheduleID: created.schedule.id)
        #expect(stored.map(\.date) == created.steps.map(\.date))
    }

    @Test func stepsFallDueAtTheLocalTimeAcrossADaylightSavingChange() async throws {
        let fixture = try await ScheduleFixture()
        let created = try await fixture.service.create(
            fixture.request(PlanTerms(type: "monthly", startDate: "2027-03-01", endType: "count", endCount: 2, day: 1, hour: 9, minute: 0)),
            merchant: fixture.merchant, actor: "t", now: ScheduleFixture.now)
        #expect(created.steps.map { Timestamp.string($0.dueAt) } == ["2027-03-01T09:00:00.000Z", "2027-04-01T08:00:00.000Z"])
    }

    @Test func aCardThatExpiresBeforeTheFirstStepIsRefused() async throws {
        let fixture = try await ScheduleFixture(expiry: "0127")
        await #expect(throws: ScheduleError.self) {
            _ = try await fixture.service.create(
                fixture.request(PlanTerms(type: "delayedOnce", startDate: "2027-02-01")), merchant: fixture.merchant, actor: "t", now: ScheduleFixture.now)
        }
        let ok = try await fixture.service.create(
            fixture.request(PlanTerms(type: "delayedOnce", startDate: "2027-01-31")), merchant: fixture.merchant, actor: "t", now: ScheduleFixture.now)
        #expect(ok.warnings.isEmpty)
    }

    @Test func amountChangesReachOnlyFutureSteps() async throws {
        let fixture = try await ScheduleFixture()
        let now = ScheduleFixture.now
        let created = try await fixture.service.create(fixture.request(ScheduleFixture.weekly(count: 3)), merchant: fixture.merchant, actor: "t", now: now)
        let afterFirst = now.addingTimeInterval(2 * 86_400)
        let changed = try await fixture.service.change(
            id: created.schedule.id, ScheduleChange(amount: 1500), merchant: fixture.merchant, actor: "t", now: afterFirst)
        #expect(changed.steps.map(\.amount) == [1000, 1500, 1500])
    }

    @Test func everyLifecycleChangeIsAudited() async throws {
        let fixture = try await ScheduleFixture()
        let now = ScheduleFixture.now
        let id = try await fixture.service.create(fixture.request(ScheduleFixture.weekly(count: 3)), merchant: fixture.merchant, actor: "t", now: now).schedule.id
        _ = try await fixture.service.confirm(id: id, merchant: fixture.merchant, actor: "t", now: now)
        _ = try await fixture.service.pause(id: id, merchant: fixture.merchant, actor: "t", now: now)
        _ = try await fixture.service.resume(id: id, catchUp: false, merchant: fixture.merchant, actor: "t", now: now)
        _ = try await fixture.service.cancel(id: id, merchant: fixture.merchant, actor: "t", now: now)
        let actions = try await fixture.store.auditEvents(merchantID: fixture.merchant.id, before: nil, limit: 10).filter { $0.objectID == id }.map(\.action)
        #expect(actions == ["schedule.cancelled", "schedule.resumed", "schedule.paused", "schedule.confirmed", "schedule.created"])
        guard case .intact = try await fixture.store.verifyAuditChain() else {
            Issue.record("audit chain broken")
            return
        }
    }
}
