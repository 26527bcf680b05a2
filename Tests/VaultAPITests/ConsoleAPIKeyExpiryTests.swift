import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// An API key issued in Settings with a last day: a date in the merchant's zone (named on the
/// form), passed to `MerchantService.issueKey` as the midnight that ends it; the list shows each
/// key's expiry and marks expired keys; a day in the past or a malformed date is a 422 that issues
/// nothing.
@Suite struct ConsoleAPIKeyExpiryTests {
    typealias Console = ConsoleRoutesTests

    @Test func aKeyIssuedWithALastDayExpiresAtTheMidnightEndingItInTheMerchantsZoneAndADayInThePastIsRefused() async throws {
        let fixture = try await APIFixture()
        let (merchant, _) = try await fixture.runtime.merchants.create(
            name: "shop-ny", role: .admin, settings: .init(timeZone: "America/New_York"), actor: "test")
        let now = Date()
        _ = try await fixture.runtime.merchants.issueKey(
            merchantName: merchant.name, role: .readonly, label: "old till", expiresAt: now.addingTimeInterval(-3600), actor: "test",
            now: now.addingTimeInterval(-7200))
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let today = CivilDate.today(in: merchant.zone)
        try await fixture.live { client in
            let keys = { try await fixture.runtime.merchants.keys(merchantName: merchant.name).map(\.record) }
            let before = try await keys().count
            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let page = try await Console.get(client, "/console/settings?merchant=\(merchant.id)", cookie: admin)
            #expect(page.text.contains("<label for=\"key-last-day\">") && page.text.contains("in America/New_York, the merchant's zone"))
            #expect(page.text.contains("<td>old till</td>") && page.text.contains("<td>expired</td>"), "an expired key is marked")
            let csrf = try Console.csrf(in: page.text)
            let issue = { (lastDay: String) in
                try await Console.post(
                    client, "/console/settings/api-keys/issue",
                    [("csrf", csrf), ("merchant", merchant.id), ("label", "till 4"), ("role", "readonly"), ("lastDay", lastDay)], cookie: admin)
            }
            let past = try await issue(today.adding(days: -1).description)
            #expect(past.status == .unprocessableContent && past.text.contains("is in the past: today is \(today) in America/New_York"))
            let malformed = try await issue("31/01/2027")
            #expect(malformed.status == .unprocessableContent && malformed.text.contains("last day is a date such as"))
            #expect(try await keys().count == before, "a refused expiry issues nothing")

            let lastDay = today.adding(days: 30)
            let issued = try await issue(lastDay.description)
            #expect(issued.status == .ok && issued.text.contains("; it expires \(lastDay.adding(days: 1)) 00:00:00 America/New_York"))
            let record = try #require(try await keys().first { $0.label == "till 4" })
            #expect(record.expiresAt == DueInstant.instant(of: lastDay.adding(days: 1), at: .midnight, in: merchant.zone))
            let listed = try await Console.get(client, "/console/settings?merchant=\(merchant.id)", cookie: admin)
            #expect(listed.text.contains("<td>never</td><td>\(lastDay.adding(days: 1)) 00:00:00 America/New_York</td><td>active</td>"))
            #expect(try await issue(today.description).status == .ok, "today is the key's last day")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'api_key.created' AND actor = 'operator:root-ops' AND details LIKE '%expiresAt%'") == 2)
    }
}
