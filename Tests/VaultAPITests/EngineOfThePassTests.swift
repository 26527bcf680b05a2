import StorageTestSupport
import Testing
@testable import VaultAPI
@testable import VaultApp
import VaultPostgres
import VaultSQLite
@testable import VaultAppTestSupport

/// The fixtures open the engine of the pass (`VAULT_TEST_ENGINE`): without it, the PostgreSQL pass
/// would silently run every test of the module on SQLite again.
@Suite struct EngineOfThePassTests {
    @Test func theAPIFixtureAndTheVaultProcessesUseTheEngineOfThePass() async throws {
        let fixture = try await APIFixture()
        let vault = try await VaultProcess.onTestEngine()
        switch TestEngine.current {
        case .sqlite:
            #expect(fixture.runtime.store is SQLiteStore)
            #expect(vault.postgres == nil)
        case .postgres:
            let store = try #require(fixture.runtime.store as? PostgresStore)
            #expect(store.url.database.hasPrefix("vault_test_"))
            #expect(vault.postgres?.url.database.hasPrefix("vault_test_") == true)
            #expect(vault.postgres?.url.database != store.url.database, "each fixture has a database of its own")
        }
        #expect(try await fixture.count("merchants") == 2)
    }
}
