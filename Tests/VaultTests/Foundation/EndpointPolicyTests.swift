import Testing
@testable import Vault
import VaultSQLite
import Scheduler
import StorageTestSupport

/// Where the vault may send requests: gateway endpoints and callback URLs, checked where
/// merchants are configured.
@Suite struct EndpointPolicyTests {
    // MARK: - Addresses

    @Test(arguments: [
        ("127.0.0.1", NetworkAddress.Scope.loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
        ("[::ffff:127.0.0.1]", .loopback), ("::ffff:7f00:1", .loopback), ("64:ff9b::7f00:1", .loopback), ("2002:7f00:1::", .loopback),
        ("10.1.2.3", .local), ("172.16.0.1", .local), ("172.31.255.255", .local), ("192.168.0.10", .local),
        ("169.254.169.254", .local), ("100.64.0.1", .local), ("100.127.255.255", .local), ("198.18.0.1", .local),
        ("192.0.0.8", .local), ("fc00::1", .local), ("fd12:3456::1", .local), ("fe80::1", .local), ("febf::1", .local),
        ("fec0::1", .local), ("2001::1", .local), ("[::ffff:10.0.0.1]", .local), ("[::ffff:169.254.169.254]", .local),
        ("0.0.0.0", .unusable), ("0.1.2.3", .unusable), ("::", .unusable), ("224.0.0.1", .unusable),
        ("255.255.255.255", .unusable), ("240.0.0.1", .unusable), ("192.0.2.1", .unusable), ("198.51.100.7", .unusable),
        ("203.0.113.9", .unusable), ("2001:db8::1", .unusable), ("ff02::1", .unusable), ("[::ffff:0.0.0.0]", .unusable),
        ("93.184.215.14", .global), ("8.8.8.8", .global), ("172.32.0.1", .global), ("100.128.0.1", .global),
        ("2606:4700::1111", .global), ("[::ffff:8.8.8.8]", .global),
    ])
    func addressesAreClassified(_ text: String, _ scope: NetworkAddress.Scope) throws {
        let address = try #require(NetworkAddress(literal: text), "\(text) did not parse")
        #expect(address.scope == scope, "\(text)")
    }

    @Test(arguments: ["127.1", "0x7f000001", "0x7F.1", "2130706433", "0177.0.0.1", "127.0.0.01", "127.0.0.1.", "1.2.3.256", "0", "017700000001",
                      "10.0.0.1.", "www.127"])
    func legacyNumericHostsAreRecognised(_ host: String) {
        #expect(NetworkAddress.isLegacyNumericHost(host), "\(host)")
        #expect(NetworkAddress(literal: host) == nil, "\(host)")
    }

    @Test(arguments: ["127.0.0.1", "93.184.215.14", "example.com", "hooks.example.test", "localhost", "a1.b2", "0x.example"])
    func ordinaryHostsAreNotNumeric(_ host: String) {
        #expect(!NetworkAddress.isLegacyNumericHost(host), "\(host)")
    }

    // MARK: - Gateway endpoints

    @Test(arguments: ["https://secure.nmi.com/api/transact.php", "https://apitest.authorize.net", "http://127.0.0.1:1234",
                      "http://127.8.9.10/api", "http://localhost:8080/x", "http://[::1]:9000/", "HTTPS://Gateway.Example.com:8443/p?q=1",
                      "https://10.0.0.5/gateway"])
    func gatewayEndpointsThatAreAllowed(_ url: String) throws {
        try EndpointPolicy.gatewayEndpoint(url)
    }

    @Test(arguments: [
        ("http://example.com", "insecure_scheme"), ("http://gateway.example.com:80/api", "insecure_scheme"),
        ("http://10.0.0.5/api", "insecure_scheme"), ("http://[::ffff:127.0.0.1]/", "insecure_scheme"),
        ("http://0x7f000001/", "disguised_address"), ("http://2130706433/", "disguised_address"), ("http://127.1/", "disguised_address"),
        ("https://0177.0.0.1/", "disguised_address"), ("https://0.0.0.0/", "unusable_address"), ("ftp://example.com", "invalid_url"),
        ("https://", "invalid_url"), ("not a url", "invalid_url"), ("https://exa mple.com", "invalid_url"),
        ("https://example.com\\@127.0.0.1/", "invalid_url"), ("https://a@b@example.com/", "invalid_url"),
        ("https://example.com:0/", "invalid_url"), ("https://example.com:99999/", "invalid_url"), ("https://example.com:/", "invalid_url"),
        ("https://ex%61mple.com/", "invalid_url"), ("https://[fe80::1%25eth0]/", "invalid_url"), ("https://bücher.example/", "invalid_url"),
    ])
    func gatewayEndpointsThatAreRefused(_ url: String, _ code: String) {
        #expect(throws: EndpointURLError.self, "\(url)") { try EndpointPolicy.gatewayEndpoint(url) }
        do {
            try EndpointPolicy.gatewayEndpoint(url)
        } catch {
            #expect(error.code == code, "\(url)")
            #expect(!error.message.contains(url))
        }
    }

    // MARK: - Callback URLs

    static let disguisedOrPrivateCallbacks = [
        "http://0x7f000001/", "http://2130706433/", "http://127.1/", "http://[::ffff:127.0.0.1]/", "https://0x7f000001/hooks",
        "https://2130706433:8443/", "https://127.1/", "https://[::ffff:127.0.0.1]/", "https://0177.0.0.1/", "https://127.0.0.1/",
        "http://127.0.0.1:1234/hooks", "http://localhost:1234/hooks", "https://hooks.localhost/", "https://10.0.0.5/",
        "https://172.16.3.4/", "https://192.168.1.1/", "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/",
        "https://[fc00::1]/", "https://[fe80::1]/", "https://[::1]/", "https://0.0.0.0/", "https://[::]/", "https://224.0.0.1/",
    ]

    @Test(arguments: disguisedOrPrivateCallbacks)
    func disguisedLoopbackAndPrivateCallbacksAreRefusedByDefault(_ url: String) {
        #expect(throws: EndpointURLError.self, "\(url)") { try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: false) }
    }

    @Test func theOperatorFlagAllowsPrivateTargetsButNeverDisguisedOrUnusableOnes() throws {
        for url in ["http://127.0.0.1:1234/hooks", "http://localhost:1234/hooks", "http://[::1]:1234/", "https://10.0.0.5/",
                    "https://[fe80::1]/", "https://169.254.169.254/", "https://[::ffff:127.0.0.1]/"] {
            try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: true)
        }
        for url in ["http://0x7f000001/", "http://2130706433/", "http://127.1/", "https://0.0.0.0/", "https://[::]/",
                    "http://10.0.0.5/", "http://[::ffff:127.0.0.1]/", "http://example.com/hooks"] {
            #expect(throws: EndpointURLError.self, "\(url)") { try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: true) }
        }
    }

    @Test(arguments: ["https://hooks.example.com/vault", "https://93.184.215.14/hooks", "https://[2606:4700::1111]/x", "https://example.com:8443"])
    func publicHTTPSCallbacksAreAllowed(_ url: String) throws {
        try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: false)
    }

    @Test func httpCallbacksToPublicHostsAreRefusedEvenWithTheFlag() {
        #expect(throws: EndpointURLError.insecureScheme) { try EndpointPolicy.callbackEndpoint("http://example.com/hooks", allowPrivateTargets: false) }
        #expect(throws: EndpointURLError.insecureScheme) { try EndpointPolicy.callbackEndpoint("http://example.com/hooks", allowPrivateTargets: true) }
    }

    // MARK: - Merchant settings

    @Test(arguments: ["http://example.com", "http://0x7f000001/", "http://127.1:8080/", "ftp://gateway.example.com"])
    func merchantGatewayURLsAreChecked(_ url: String) async throws {
        let fixture = try await VaultFixture()
        do {
            _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: MerchantSettings(gatewayURL: url), actor: "test")
            Issue.record("accepted gateway URL \(url)")
        } catch let error as MerchantSettingError {
            #expect(error.setting == "gateway-url")
        }
        #expect(try await fixture.store.merchants().isEmpty)
        let created = try await fixture.merchants.create(
            name: "acme", role: .admin, settings: MerchantSettings(gatewayURL: "http://127.0.0.1:1234"), actor: "test")
        #expect(created.merchant.gateway.url == "http://127.0.0.1:1234")
    }

    @Test(arguments: disguisedOrPrivateCallbacks)
    func merchantCallbackURLsAreCheckedOnCreateAndUpdate(_ url: String) async throws {
        let fixture = try await VaultFixture()
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.merchants.create(name: "acme", role: .admin, settings: MerchantSettings(callbackURL: url), actor: "test")
        }
        #expect(try await fixture.store.merchants().isEmpty)
        _ = try await fixture.merchants.create(
            name: "acme", role: .admin, settings: MerchantSettings(callbackURL: "https://hooks.example.com/a"), actor: "test")
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.merchants.update(name: "acme", settings: MerchantSettings(callbackURL: url), actor: "test")
        }
        #expect(try await fixture.store.merchant(named: "acme")?.callbackURL == "https://hooks.example.com/a")
    }

    @Test func aMerchantServiceAllowingPrivateTargetsAcceptsALoopbackCallback() async throws {
        let fixture = try await VaultFixture()
        let service = MerchantService(
            store: fixture.store, keyring: fixture.keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: TestGateways.rules, allowPrivateCallbackTargets: true)
        let created = try await service.create(
            name: "acme", role: .admin, settings: MerchantSettings(callbackURL: "http://127.0.0.1:1234/hooks"), actor: "test")
        #expect(created.merchant.callbackURL == "http://127.0.0.1:1234/hooks")
        await #expect(throws: MerchantSettingError.self) {
            _ = try await service.update(name: "acme", settings: MerchantSettings(callbackURL: "http://2130706433:1234/"), actor: "test")
        }
    }
}
