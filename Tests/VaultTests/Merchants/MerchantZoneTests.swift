import Foundation
import Testing
import Vault

/// The merchant's zone, defined once: its stored IANA name, or UTC when the name is unknown here.
@Suite struct MerchantZoneTests {
    func merchant(timeZone: String) -> Merchant {
        Merchant(
            id: "mer_1", sequence: 1, name: "m", status: .active, gateway: GatewaySettings(name: "sandbox"), timeZone: timeZone,
            callbackURL: nil, verifyOnRegistration: false, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func aKnownZoneIsTheMerchantsZone() {
        let newYork = merchant(timeZone: "America/New_York")
        #expect(newYork.zone == TimeZone(identifier: "America/New_York"))
        #expect(newYork.zoneName == "America/New_York")
    }

    @Test func anUnknownZoneNameFallsBackToUTC() {
        let unknown = merchant(timeZone: "Mars/Olympus_Mons")
        #expect(unknown.zone == TimeZone(identifier: "UTC"))
        #expect(unknown.zoneName == "UTC")
    }
}
