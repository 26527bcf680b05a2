import Foundation
@testable import Vault
@testable import VaultSQLite

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "vault-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A migrated store, a key ring over it and a merchant service, in a temporary directory.
struct VaultFixture {
    let directory = TemporaryDirectory()
    let store: SQLiteStore
    let ring: MasterKeyRing
    let keyring: Keyring
    let merchants: MerchantService

    init(ring: MasterKeyRing? = nil) async throws {
        store = try SQLiteStore(path: directory.file("vault.sqlite"))
        self.ring = try ring ?? MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        keyring = Keyring(masterKeys: self.ring, store: store)
        try await keyring.verifyMasterKey()
        merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: TestGateways.rules)
    }

    /// Reopens the same database with another key ring.
    func reopened(with ring: MasterKeyRing) -> Keyring {
        Keyring(masterKeys: ring, store: store)
    }
}
