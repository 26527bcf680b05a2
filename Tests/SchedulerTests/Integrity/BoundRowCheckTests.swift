import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `vault audit verify`'s row check names every bound row altered in the database (a card's
/// metadata, an API key's role, a schedule's card, a step's amount) by its id, and nothing else;
/// on either engine.
@Suite struct BoundRowCheckTests {
    typealias Tampered = TamperedScheduleChargeTests

    @Test func anUntouchedVaultIsIntactAndEveryKindOfRowIsChecked() async throws {
        let setup = try await Tampered.setup()
        let report = try await BoundRowCheck(store: setup.fixture.store, keyring: setup.fixture.keyring).run()
        #expect(report.isIntact)
        #expect(report.checked == ["secure_cards": 2, "api_keys": 1, "schedules": 2, "schedule_steps": 2])
    }

    @Test func rowsAlteredInSQLAreNamedByTheirIdsOnly() async throws {
        let setup = try await Tampered.setup()
        let sql = setup.fixture.database.sql
        let key = try await setup.fixture.store.apiKeys(merchantID: setup.merchant.id)[0].record.id
        try await sql.run("UPDATE schedules SET secure_card_id = \(setup.otherCard.reference) WHERE id = \(setup.tampered.schedule.id)")
        try await sql.run("UPDATE schedule_steps SET amount = 999999 WHERE id = \(setup.intact.steps[0].id)")
        try await sql.run("UPDATE api_keys SET role = 'runner' WHERE id = \(key)")
        try await sql.run("UPDATE secure_cards SET expiry_year = 2040 WHERE id = \(setup.otherCard.reference)")

        let report = try await BoundRowCheck(store: setup.fixture.store, keyring: setup.fixture.keyring).run()
        #expect(!report.isIntact)
        #expect(report.tampered == [
            "schedules": [setup.tampered.schedule.id], "schedule_steps": [setup.intact.steps[0].id], "api_keys": [key],
            "secure_cards": [setup.otherCard.reference],
        ])
        let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!text.contains("4242") && !text.contains("5555"), "no card data")
    }
}
