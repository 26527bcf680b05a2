import Foundation
import Synchronization
import Testing
import Vault
@testable import Scheduler

/// Webhook deliveries go only where the operator
/// allows. The URL is checked again at delivery, a host name is resolved by the vault, every
/// address is checked, and the connection goes to the address that was checked (DNS rebinding
/// cannot swap it). Nothing here sends a packet anywhere but 127.0.0.1: refusals happen before
/// any connection, and the private addresses below are only ever classified.
@Suite struct CallbackTargetTests {
    /// A resolver with fixed answers (an address text, or another name the system resolves), that
    /// counts its look-ups.
    final class ScriptedResolver: HostResolver {
        enum Answer: Sendable {
            case addresses([String])
            case systemName(String)
        }

        private let answers: [String: Answer]
        private let calls = Mutex(0)

        init(_ answers: [String: Answer]) {
            self.answers = answers
        }

        var lookUps: Int { calls.withLock { $0 } }

        func addresses(of host: String) async throws -> [NetworkAddress] {
            calls.withLock { $0 += 1 }
            switch answers[host.lowercased()] {
            case .addresses(let texts): return texts.compactMap { NetworkAddress(literal: $0) }
            case .systemName(let name): return try await SystemHostResolver().addresses(of: name)
            case nil: throw SystemHostResolver.ResolutionFailed()
            }
        }
    }

    @Test func theSystemResolverFindsLocalhostOnLoopback() async throws {
        let addresses = try await SystemHostResolver().addresses(of: "localhost")
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.scope == .loopback })
    }

    @Test func aNameThatResolvesToLoopbackIsRefusedAtDeliveryAndTheReceiverGetsNothing() async throws {
        let fixture = try await WebhookDeliveryFixture()
        // An innocent-looking name whose real getaddrinfo answer (through `localhost`) is 127.0.0.1,
        // where the receiver listens: a rebinding attacker's name, pointing at the vault's host.
        let resolver = ScriptedResolver(["hooks.example.test": .systemName("localhost")])
        try await fixture.storeCallbackURL("http://hooks.localhost:\(fixture.receiverPort)/hooks")
        let id = try await fixture.enqueue()
        let refusing = HTTPWebhookTransport(allowPrivateTargets: false, resolver: resolver)
        #expect(try await fixture.deliverer(transport: refusing).deliverDue(now: WebhookDeliveryFixture.now).failed == 1)
        #expect(try await fixture.event(id)?.lastError == "callback_url_refused")

        try await fixture.storeCallbackURL("https://hooks.example.test:\(fixture.receiverPort)/hooks")
        let later = WebhookDeliveryFixture.now.addingTimeInterval(7200)
        #expect(try await fixture.deliverer(transport: refusing).deliverDue(now: later).failed == 1)
        #expect(try await fixture.event(id)?.lastError == "callback_address_refused")
        #expect(resolver.lookUps == 1)
        #expect(fixture.receiver.received.isEmpty)
        await fixture.tearDown()
    }

    @Test func theDeliveryGoesToTheAddressThatWasCheckedAndResolvesOnce() async throws {
        let fixture = try await WebhookDeliveryFixture()
        // The system cannot resolve this name; only the checked answer can take the request to the receiver.
        let resolver = ScriptedResolver(["hooks.localhost": .addresses(["127.0.0.1"])])
        try await fixture.storeCallbackURL("http://hooks.localhost:\(fixture.receiverPort)/hooks")
        let id = try await fixture.enqueue()
        let transport = HTTPWebhookTransport(allowPrivateTargets: true, resolver: resolver)
        #expect(try await fixture.deliverer(transport: transport).deliverDue(now: WebhookDeliveryFixture.now).delivered == 1)
        #expect(try await fixture.event(id)?.status == .delivered)
        #expect(resolver.lookUps == 1)
        let received = try #require(fixture.receiver.received.first)
        #expect(received.headers["host"] == "hooks.localhost:\(fixture.receiverPort)")
        await fixture.tearDown()
    }

    @Test(arguments: [
        ["10.0.0.7"], ["93.184.215.14", "169.254.169.254"], ["fd00::1"], ["::ffff:127.0.0.1"], ["127.0.0.1"], ["192.168.1.20"], ["100.64.1.1"],
        ["fe80::1"], ["0.0.0.0"], ["::"], ["2606:4700::1111", "::1"],
    ])
    func aNameWithAnyNonPublicAddressIsRefusedBeforeConnecting(_ addresses: [String]) async {
        let resolver = ScriptedResolver(["hooks.example.test": .addresses(addresses)])
        let transport = HTTPWebhookTransport(allowPrivateTargets: false, resolver: resolver)
        #expect(await transport.destination(of: "https://hooks.example.test/vault") == .refused(reason: "callback_address_refused"))
    }

    @Test func aNameWithOnlyPublicAddressesIsPinnedToTheFirstAndTheFlagAllowsPrivateOnes() async {
        let resolver = ScriptedResolver([
            "hooks.example.test": .addresses(["93.184.215.14", "2606:4700::1111"]), "internal.example.test": .addresses(["10.0.0.7"]),
            "nowhere.example.test": .addresses(["0.0.0.0"]),
        ])
        let strict = HTTPWebhookTransport(allowPrivateTargets: false, resolver: resolver)
        #expect(await strict.destination(of: "https://hooks.example.test/vault") == .pinned(address: "93.184.215.14"))
        #expect(await strict.destination(of: "https://unknown.example.test/vault") == .refused(reason: "dns_failed"))
        let lenient = HTTPWebhookTransport(allowPrivateTargets: true, resolver: resolver)
        #expect(await lenient.destination(of: "https://internal.example.test/vault") == .pinned(address: "10.0.0.7"))
        #expect(await lenient.destination(of: "https://nowhere.example.test/vault") == .refused(reason: "callback_address_refused"))
        #expect(await lenient.destination(of: "https://127.0.0.1/vault") == .literal)
        #expect(await strict.destination(of: "https://127.0.0.1/vault") == .refused(reason: "callback_url_refused"))
    }

    @Test(arguments: ["http://0x7f000001:PORT/hooks", "http://2130706433:PORT/hooks", "http://127.1:PORT/hooks", "http://0177.0.0.1:PORT/hooks",
                      "http://[::ffff:127.0.0.1]:PORT/hooks", "http://127.0.0.1.:PORT/hooks"])
    func disguisedLoopbackURLsStoredBeforeTheRulesAreRefusedAtDeliveryEvenWithPrivateTargetsAllowed(_ template: String) async throws {
        let fixture = try await WebhookDeliveryFixture()
        try await fixture.storeCallbackURL(template.replacingOccurrences(of: "PORT", with: String(fixture.receiverPort)))
        let id = try await fixture.enqueue()
        let report = try await fixture.deliverer(transport: HTTPWebhookTransport(allowPrivateTargets: true)).deliverDue(now: WebhookDeliveryFixture.now)
        #expect(report.failed == 1)
        #expect(try await fixture.event(id)?.lastError == "callback_url_refused")
        #expect(fixture.receiver.received.isEmpty, "a disguised loopback URL reached the receiver")
        await fixture.tearDown()
    }

    @Test func aLoopbackCallbackIsRefusedWithoutTheFlagAndDeliveredWithIt() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue()
        let refused = try await fixture.deliverer(transport: HTTPWebhookTransport(allowPrivateTargets: false)).deliverDue(now: WebhookDeliveryFixture.now)
        #expect(refused.failed == 1)
        #expect(try await fixture.event(id)?.lastError == "callback_url_refused")
        #expect(fixture.receiver.received.isEmpty)
        let later = WebhookDeliveryFixture.now.addingTimeInterval(7200)
        #expect(try await fixture.deliverer(transport: HTTPWebhookTransport(allowPrivateTargets: true)).deliverDue(now: later).delivered == 1)
        #expect(fixture.receiver.received.count == 1)
        await fixture.tearDown()
    }

    @Test func anHTTPCallbackToAPublicNameIsRefusedAtDelivery() async throws {
        let fixture = try await WebhookDeliveryFixture()
        try await fixture.storeCallbackURL("http://hooks.example.com/vault")
        let id = try await fixture.enqueue()
        #expect(try await fixture.deliverer().deliverDue(now: WebhookDeliveryFixture.now).failed == 1)
        #expect(try await fixture.event(id)?.lastError == "callback_url_refused")
        await fixture.tearDown()
    }

    @Test func pinnedClientsAreBoundedAndReused() async {
        let clients = PinnedHTTPClients(capacity: 2)
        for round in 0..<3 {
            for host in ["a.example.test", "b.example.test", "c.example.test"] {
                _ = await clients.withClient(host: host, address: "127.0.0.\(round + 1)") { _ in 0 }
            }
        }
        #expect(clients.openCount <= 2)
        await clients.shutDownAll()
        #expect(clients.openCount == 0)
    }
}
