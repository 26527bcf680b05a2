import Foundation
import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// Merchants created at the same moment by two servers (or a server and the CLI) on one database
/// each get their own sequence number: it is taken in the creating transaction, not read before it
/// (which made the second of two creations fail as "name taken").
@Suite struct MerchantSequenceTests {
    @Test func theStoreNumbersEachNewMerchantAfterTheOnesBeforeWhateverItWasGiven() async throws {
        let fixture = try await VaultFixture()
        func create(_ name: String) async throws -> Int64 {
            let now = Date()
            let merchant = Merchant(
                id: OpaqueToken.make(prefix: "mer_", randomBits: 80), sequence: 1, name: name, status: .active,
                gateway: GatewaySettings(name: "sandbox"), timeZone: "UTC", callbackURL: nil, verifyOnRegistration: true, createdAt: now,
                updatedAt: now)
            let keys = try fixture.keyring.newMerchantKeys(merchantID: merchant.id, now: now)
            return try await fixture.store.createMerchant(
                merchant, keys: keys, sealedGatewayCredentials: nil,
                apiKey: try await APIKeyBinding(keyring: fixture.keyring).issue(
                    merchantID: merchant.id, role: .admin, now: now, fingerprintKey: try fixture.keyring.unwrap(keys.first { $0.purpose == .fingerprint }!)),
                audit: AuditEntry(merchantID: merchant.id, actor: "test", action: "merchant.created", objectType: "merchant", objectID: merchant.id))
        }
        #expect(try await create("first") == 1)
        #expect(try await create("second") == 2)
        await #expect(throws: MerchantError.nameTaken("first")) { try await create("first") }
        #expect(try await create("third") == 3)
        let stored = try await fixture.sql.query("SELECT name, seq FROM merchants ORDER BY seq")
        #expect(try stored.map { "\(try $0.string("name")):\(try $0.int64("seq"))" } == ["first:1", "second:2", "third:3"])
        #expect(try await fixture.sql.count("SELECT count(*) AS n FROM audit_events WHERE action = 'merchant.created'") == 3)
    }

    @Test func merchantsCreatedAtOnceOnTwoServersAreAllCreatedWithTheirOwnSequence() async throws {
        let fixture = try await VaultFixture()
        let other = try #require(try await fixture.database.openAnother() as? any VaultStorage & KeyGenerationStore)
        defer { TestDatabase.close(other) }
        let services = [
            fixture.merchants,
            MerchantService(
                store: other, keyring: Keyring(masterKeys: fixture.ring, store: other), defaultTimeZone: "UTC", defaultGateway: "sandbox",
                gateways: TestGateways.rules),
        ]
        let names = (0..<16).map { "m\($0)" }
        let created = try await withThrowingTaskGroup(of: Merchant.self) { group in
            for (index, name) in names.enumerated() {
                group.addTask {
                    try await services[index % 2].create(name: name, role: .admin, settings: .init(), actor: "test").merchant
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(created.map(\.name)) == Set(names))
        #expect(Set(created.map(\.sequence)).count == names.count)
        let stored = try await fixture.sql.query("SELECT name, seq FROM merchants")
        #expect(Set(try stored.map { try $0.string("name") }) == Set(names))
        #expect(Set(try stored.map { try $0.int64("seq") }) == Set(created.map(\.sequence)))
    }
}
