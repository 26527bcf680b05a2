import Testing
import Vault

/// What an unreadable row's error says in the log.
@Suite struct StoredRowErrorTests {
    @Test func theErrorNamesTheRowColumnAndValue() {
        let error = StoredRowError.unreadable(table: "schedules", id: "sch_1", column: "status", value: "frozen")
        #expect(error.description == #"row sch_1 of schedules: column status holds "frozen", which this build cannot read"#)
    }

    @Test func aCardNumberPlantedInAnUnreadableColumnOrIdIsMaskedAndLongValuesAreCut() {
        let planted = StoredRowError.unreadable(
            table: "secure_cards", id: "sc_4111 1111 1111 1111", column: "card_type", value: "4242-4242-4242-4242")
        #expect(!planted.description.contains("4242-4242-4242-4242"))
        #expect(!planted.description.contains("1111 1111 1111"))
        #expect(planted.description.contains("4242-42"))
        let long = StoredRowError.unreadable(table: "t", id: "x", column: "c", value: String(repeating: "a", count: 500))
        #expect(long.description.count < 200)
        #expect(long.description.contains(String(repeating: "a", count: StoredRowError.shownLength) + "…"))
    }
}
