import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// The Audit screen's chain check: an operator of every merchant verifies the whole chain from the
/// console (as `vault audit verify` does) by a form post, sees it intact, and sees it broken once an
/// event is edited in the database; an operator limited to some merchants is not offered the check
/// and is refused it; a post without the session's CSRF token changes and checks nothing.
@Suite struct ConsoleAuditVerificationTests {
    typealias Console = ConsoleRoutesTests

    @Test func anOperatorOfEveryMerchantSeesTheChainIntactThenBrokenAfterAnEventIsEdited() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "vera", role: .readonly)
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("audit-1", verify: false)).status == .created)
            let vera = try await Console.signIn(client, "vera", secret: secret)
            let page = try await Console.get(client, "/console/audit", cookie: vera)
            #expect(page.status == .ok && page.text.contains("action=\"/console/audit/verify\""))

            let unsigned = try await Console.post(client, "/console/audit/verify", [], cookie: vera)
            #expect(unsigned.status == .forbidden && !unsigned.text.contains("Chain verified"))
            #expect(try await fixture.count("audit_events WHERE action = 'console.audit_verified'") == 0)

            let intact = try await Console.post(client, "/console/audit/verify", [("csrf", try Console.csrf(in: page.text))], cookie: vera)
            #expect(intact.status == .ok)
            #expect(intact.text.contains("Chain verified: intact"))
            #expect(try await fixture.count("audit_events WHERE action = 'console.audit_verified'") == 1)

            _ = try await fixture.sql.run("UPDATE audit_events SET actor = 'someone-else' WHERE action = 'secure_card.registered'")
            let broken = try await Console.post(client, "/console/audit/verify", [("csrf", try Console.csrf(in: intact.text))], cookie: vera)
            #expect(broken.status == .ok)
            #expect(broken.text.contains("Chain verified: broken at event") && broken.text.contains("role=\"alert\""))
        }
    }

    @Test func anOperatorLimitedToOneMerchantIsNeitherOfferedNorAllowedTheWholeChainsCheck() async throws {
        let fixture = try await APIFixture()
        let (_, enrollment) = try await fixture.runtime.operators.create(
            name: "bea", role: .admin, merchantNames: ["merchant-b"], password: Console.password, actor: "test")
        let secret = try Encoding.fromBase32(enrollment.secret)
        try await fixture.live { client in
            let bea = try await Console.signIn(client, "bea", secret: secret)
            let page = try await Console.get(client, "/console/audit", cookie: bea)
            #expect(page.status == .ok && !page.text.contains("/console/audit/verify"))
            let forged = try await Console.post(client, "/console/audit/verify", [("csrf", try Console.csrf(in: page.text))], cookie: bea)
            #expect(forged.status == .forbidden && !forged.text.contains("Chain verified"))
            #expect(try await fixture.count("audit_events WHERE action = 'console.audit_verified'") == 0)
        }
    }
}
