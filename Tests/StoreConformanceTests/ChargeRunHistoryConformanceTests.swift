import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `ChargeRunHistoryStore` on the run's engine: a merchant's runs are its own and those of every
/// merchant (recorded without one), newest first, paged by sequence; another merchant's never.
@Suite("Store conformance: charge run history")
struct ChargeRunHistoryConformanceTests {
    static func record(_ fixture: StoreFixture, merchantID: String?, startedBy: String, summary: String? = nil) async throws -> ChargeRunRecord {
        let run = ChargeRunRecord(
            id: OpaqueToken.make(prefix: "run_", randomBits: 80), merchantID: merchantID, status: .completed,
            asOf: Timestamp.parse("2027-03-02T00:00:00.000Z")!, dryRun: false, startedBy: startedBy,
            startedAt: Timestamp.parse("2027-03-02T00:00:01.000Z")!, finishedAt: Timestamp.parse("2027-03-02T00:00:09.000Z")!, summary: summary)
        try await fixture.store.insertChargeRun(
            run, audit: AuditEntry(merchantID: merchantID, actor: startedBy, action: "charge_run.started", objectType: "charge_run", objectID: run.id))
        return run
    }

    @Test func aMerchantsRunsAreItsOwnAndThoseOfEveryMerchantNewestFirst() async throws {
        let fixture = try await StoreFixture()
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        let own = try await Self.record(fixture, merchantID: fixture.merchantID, startedBy: "key:admin", summary: #"{"runId":"x"}"#)
        let nightly = try await Self.record(fixture, merchantID: nil, startedBy: "cli")
        let foreign = try await Self.record(fixture, merchantID: other.id, startedBy: "cli")
        let ownByCLI = try await Self.record(fixture, merchantID: fixture.merchantID, startedBy: "cli")

        let listed = try await fixture.store.chargeRuns(merchantID: fixture.merchantID, beforeSequence: nil, limit: 10)
        #expect(listed.map(\.record.id) == [ownByCLI.id, nightly.id, own.id])
        #expect(listed.map(\.record.startedBy) == ["cli", "cli", "key:admin"])
        #expect(listed[1].record.merchantID == nil)
        #expect(listed[2].record == own, "read back as recorded")
        #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.sequence > $1.sequence })

        let first = try await fixture.store.chargeRuns(merchantID: fixture.merchantID, beforeSequence: nil, limit: 2)
        #expect(first.map(\.record.id) == [ownByCLI.id, nightly.id])
        let rest = try await fixture.store.chargeRuns(merchantID: fixture.merchantID, beforeSequence: first[1].sequence, limit: 2)
        #expect(rest.map(\.record.id) == [own.id])
        #expect(try await fixture.store.chargeRuns(merchantID: other.id, beforeSequence: nil, limit: 10).map(\.record.id) == [foreign.id, nightly.id])
    }
}
