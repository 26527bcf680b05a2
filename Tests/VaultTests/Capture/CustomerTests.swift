import Testing
@testable import Vault

@Suite struct CustomerTests {
    @Test("a fully filled, valid customer passes")
    func validCustomer() throws {
        let customer = Customer(email: "jane.doe+cards@example.co.uk", mobileNumber: "+44 7700 900123", city: "London",
                                region: "Greater London", country: "GB", ipAddress: "203.0.113.7")
        try customer.validate()
        try Customer().validate()
    }

    @Test("good e-mail addresses", arguments: [
        "a@b.co", "first.last@example.com", "x_y-z+tag@sub.domain.example", "o'brien@example.ie", "1234@example.com",
        "user@xn--bcher-kva.example", "a@b-c.io", String(repeating: "a", count: 64) + "@example.com",
    ])
    func goodEmails(email: String) throws {
        try Customer(email: email).validate()
    }

    @Test("bad e-mail addresses", arguments: [
        "", "plain", "@example.com", "user@", "user@@example.com", "a@b@example.com", "user@example", "user@.com",
        "user@example.", "user@-example.com", "user@example-.com", ".user@example.com", "user.@example.com",
        "us..er@example.com", "user name@example.com", "user@exa mple.com", "user@bücher.de", "ünïcode@example.com",
        "user@example.123", "user\n@example.com", String(repeating: "a", count: 65) + "@example.com",
        "user@" + String(repeating: "a", count: 64) + ".com",
    ])
    func badEmails(email: String) {
        expectCardDataError(field: "customer.email", code: "invalid_format") { () throws(CardDataError) in
            try Customer(email: email).validate()
        }
    }

    @Test("an e-mail address over 254 characters is too_long")
    func longEmail() {
        let email = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 63) + "."
            + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 63) + ".com"
        expectCardDataError(field: "customer.email", code: "too_long") { () throws(CardDataError) in
            try Customer(email: email).validate()
        }
    }

    @Test("good mobile numbers", arguments: [
        "+14155552671", "+44 7700 900123", "+1 (415) 555-2671", "07700900123", "+7.912.345.67.89", "1234567",
        "+123456789012345",
    ])
    func goodPhones(phone: String) throws {
        try Customer(mobileNumber: phone).validate()
    }

    @Test("bad mobile numbers", arguments: [
        "", "+", "123456", "+1234567890123456", "+0441234567", "44+1234567", "phone", "+44 7700 900123 ext 5",
        "++441234567", "+44\n7700900123", "１２３４５６７８", String(repeating: "12", count: 20),
    ])
    func badPhones(phone: String) {
        expectCardDataError(field: "customer.mobileNumber", code: "invalid_format") { () throws(CardDataError) in
            try Customer(mobileNumber: phone).validate()
        }
    }

    @Test("city and region: 1-100 characters, no control characters")
    func places() throws {
        try Customer(city: "São Paulo", region: String(repeating: "é", count: 100)).validate()
        try Customer(city: "Llanfairpwllgwyngyll").validate()
        expectCardDataError(field: "customer.city", code: "too_long") { () throws(CardDataError) in
            try Customer(city: String(repeating: "x", count: 101)).validate()
        }
        expectCardDataError(field: "customer.region", code: "too_long") { () throws(CardDataError) in
            try Customer(region: String(repeating: "x", count: 101)).validate()
        }
        expectCardDataError(field: "customer.city", code: "invalid_format") { () throws(CardDataError) in
            try Customer(city: "").validate()
        }
        expectCardDataError(field: "customer.region", code: "invalid_format") { () throws(CardDataError) in
            try Customer(region: "New\tYork").validate()
        }
        expectCardDataError(field: "customer.city", code: "too_long") { () throws(CardDataError) in
            try Customer(city: String(repeating: "x", count: 1_000_000)).validate()
        }
    }

    @Test("assigned ISO 3166-1 alpha-2 countries", arguments: ["GB", "US", "DE", "JP", "RU", "AX", "SS", "CW", "BQ", "AQ"])
    func goodCountries(country: String) throws {
        try Customer(country: country).validate()
    }

    @Test("unassigned, reserved, lowercase or malformed countries", arguments: [
        "", "gb", "Gb", "UK", "EU", "XK", "ZZ", "AA", "QZ", "GBR", "G", "1A", "ＧＢ",
    ])
    func badCountries(country: String) {
        expectCardDataError(field: "customer.country", code: "invalid_format") { () throws(CardDataError) in
            try Customer(country: country).validate()
        }
    }

    @Test("the full ISO 3166-1 list has 249 codes")
    func fullCountryList() {
        #expect(CountryCode.assigned.count == 249)
        #expect(CountryCode.assigned.allSatisfy { $0.utf8.count == 2 && $0.uppercased() == $0 })
    }

    @Test("IPv4 and IPv6 addresses", arguments: [
        "192.0.2.1", "0.0.0.0", "255.255.255.255", "2001:db8::1", "::1", "::", "::ffff:192.0.2.1",
        "2001:0db8:0000:0000:0000:ff00:0042:8329", "FE80::1",
    ])
    func goodIPs(ip: String) throws {
        try Customer(ipAddress: ip).validate()
    }

    @Test("malformed IP addresses", arguments: [
        "", "1", "256.0.0.1", "1.2.3", "1.2.3.4.5", "192.0.2.1 ", " 192.0.2.1", "192.0.2.1\u{0}junk", "2001:db8:::1",
        "fe80::1%eth0", "example.com", "1.2.3.04x", "::ffff:999.0.0.1", String(repeating: "1.", count: 50),
    ])
    func badIPs(ip: String) {
        expectCardDataError(field: "customer.ipAddress", code: "invalid_format") { () throws(CardDataError) in
            try Customer(ipAddress: ip).validate()
        }
    }

    @Test("normalized trims, blanks become nil and the country is upper-cased")
    func normalized() throws {
        let customer = Customer(email: " jane@example.com ", mobileNumber: "  ", city: " Paris", region: nil,
                                country: " fr ", ipAddress: "\t::1\n").normalized()
        #expect(customer == Customer(email: "jane@example.com", city: "Paris", country: "FR", ipAddress: "::1"))
        try customer.validate()
    }
}
