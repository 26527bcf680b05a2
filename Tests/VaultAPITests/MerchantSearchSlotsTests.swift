import HTTPTypes
import Testing
@testable import VaultAPI

/// One merchant's text searches are bounded per server: beyond its slots a search is a 429 at
/// once, before the database; another merchant's searches and its own after a slot frees go on.
@Suite struct MerchantSearchSlotsTests {
    @Test func aSearchBeyondTheMerchantsSlotsIs429WhileAnotherMerchantSearches() async throws {
        let slots = MerchantSearchSlots(limit: 2)
        #expect(slots.take(merchantID: "mer_a") && slots.take(merchantID: "mer_a"))
        var ran = false
        do {
            _ = try await slots.run(merchantID: "mer_a") { ran = true }
            Issue.record("a third search of mer_a ran")
        } catch let error as APIError {
            #expect(error.status.code == 429 && error.code == "too_many_searches" && error.headers[.retryAfter] == "1")
        }
        #expect(!ran, "refused before the search ran")
        #expect(try await slots.run(merchantID: "mer_b") { "searched" } == "searched", "another merchant is not affected")

        slots.release(merchantID: "mer_a")
        #expect(try await slots.run(merchantID: "mer_a") { 1 } == 1, "a freed slot takes the next search")
        // The slot is given back after the search, also when it throws.
        struct Failed: Error {}
        await #expect(throws: Failed.self) { try await slots.run(merchantID: "mer_a") { throw Failed() } }
        #expect(slots.take(merchantID: "mer_a"), "the slot the failed search held is free again")
        #expect(!slots.take(merchantID: "mer_a"))
    }
}
