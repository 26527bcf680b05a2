import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Every access line says who asked.
@Suite struct AccessLogCallerTests {
    static func accessLines(_ fixture: APIFixture) -> [Logger.Metadata] {
        fixture.logs.entries.filter { $0.message.description == "request" }.map(\.metadata)
    }

    @Test func everyAccessLineCarriesTheMerchantTheKeyAndTheClientAddress() async throws {
        let fixture = try await APIFixture()
        let readonly = try await fixture.runtime.merchants.issueKey(merchantName: "merchant-b", role: .readonly, actor: "test")
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/secure-cards", key: readonly.bearer)
            #expect(response.status == .ok)
        }
        let lines = Self.accessLines(fixture)
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line["merchant"]?.description == fixture.merchantB.id)
        #expect(line["apiKey"]?.description == readonly.record.id)
        #expect(line["clientAddress"]?.description == "127.0.0.1")
        #expect(line["status"]?.description == "200")
        #expect(!fixture.logText.contains(readonly.bearer), "the API key itself reached the log")
    }

    @Test func unauthenticatedAndErrorLinesCarryTheAddressAndADashForTheCaller() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let unauthenticated = try await client.send(.get, "/v1/secure-cards", key: "vk_aaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
            #expect(unauthenticated.status == .unauthorized)
            let missing = try await client.send(.get, "/v1/secure-cards/missing", key: fixture.adminA)
            #expect(missing.status == .notFound)
        }
        let lines = Self.accessLines(fixture)
        #expect(lines.count == 2)
        #expect(lines.first?["merchant"]?.description == "-")
        #expect(lines.first?["apiKey"]?.description == "-")
        #expect(lines.first?["clientAddress"]?.description == "127.0.0.1")
        #expect(lines.last?["merchant"]?.description == fixture.merchantA.id, "a failed request still names who asked")
    }

    @Test func aForwardedForHeaderDoesNotChangeTheLoggedAddress() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9", HTTPField.Name("X-Real-IP")!: "203.0.113.9"]
            _ = try await client.send(.get, "/v1/secure-cards", key: fixture.adminA, headers: headers)
        }
        #expect(Self.accessLines(fixture).first?["clientAddress"]?.description == "127.0.0.1")
        #expect(!fixture.logText.contains("203.0.113.9"))
    }

    @Test(arguments: ["/v1/secure-cards/4111111111111111", "/v1/secure-cards/4111%201111%201111%201111", "/v1/secure-cards/4111-1111-1111-1111"])
    func aCardNumberSentAsAPathSegmentIsMaskedInTheAccessLine(path: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.send(.get, path, key: fixture.adminA)
        }
        let logged = try #require(Self.accessLines(fixture).first?["path"]?.description)
        #expect(logged.hasPrefix("/v1/secure-cards/4111"))
        #expect(!logged.filter(\.isNumber).contains("111111111111"))
        #expect(!fixture.logText.filter(\.isNumber).contains("4111111111111111"), "the card number reached the log")
    }

    @Test func ordinaryPathsAreLoggedAsTheyCame() {
        #expect(AccessLog.path("/v1/secure-cards/cust-1") == "/v1/secure-cards/cust-1")
        #expect(AccessLog.path("/v1/schedules/sch_12/steps/stp_34/skip") == "/v1/schedules/sch_12/steps/stp_34/skip")
    }
}
