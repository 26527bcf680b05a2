import Foundation
import StorageTestSupport
import Testing
import VaultPostgres
import VaultSQLite
@testable import VaultApp
@testable import VaultAppTestSupport

/// `vault migrate --status`: where the database stands, by migration number and name, without
/// applying anything; the exit code says whether migrations are pending.
@Suite struct MigrateStatusCommandTests {
    /// The migrations of the pass's engine, newest last.
    private func newest(_ vault: VaultProcess) -> (id: Int, name: String) {
        if vault.postgres != nil, let last = PostgresSchema.migrations.last { return (last.id, last.name) }
        let last = Schema.migrations.last!
        return (last.id, last.name)
    }

    @Test func aMigratedDatabaseHasNothingPendingAndExitsZero() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let outcome = try await vault.run(["migrate", "--status"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("is at migration \(newest(vault).id)"))
        #expect(outcome.stdout.contains("no migration pending"))
    }

    @Test func aPendingMigrationIsListedByNumberAndNameWithExitThreeAndIsNotApplied() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let last = newest(vault)
        try await vault.withStore { store in _ = try await TestSQL(store).run("DELETE FROM schema_migrations WHERE id = \(last.id)") }
        let outcome = try await vault.run(["migrate", "--status"])
        #expect(outcome.status == MigrateCommand.pendingExitCode)
        #expect(outcome.stdout.contains("1 pending"))
        #expect(outcome.stdout.contains("  \(last.id) \(last.name)"))
        let json = try await vault.run(["migrate", "--status", "--json"])
        #expect(json.status == MigrateCommand.pendingExitCode)
        #expect(json.stdout.contains("\"id\":\(last.id)"))
        // Nothing was applied: asked again, the same migration is pending.
        let again = try await vault.run(["migrate", "--status"])
        #expect(again.status == MigrateCommand.pendingExitCode)
        #expect(again.stdout.contains("  \(last.id) \(last.name)"))
    }

    @Test func aDatabaseMigratedByANewerBuildSaysSoWithExitFour() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        try await vault.withStore { store in
            _ = try await TestSQL(store).run("INSERT INTO schema_migrations (id, name, applied_at) VALUES (9999, 'from the future', '2030-01-01T00:00:00Z')")
        }
        let outcome = try await vault.run(["migrate", "--status"])
        #expect(outcome.status == MigrateCommand.newerDatabaseExitCode)
        #expect(outcome.stdout.contains("9999"))
    }

    @Test func aMissingSQLiteDatabaseHasEveryMigrationPendingAndIsNotCreated() async throws {
        let vault = VaultProcess()
        let outcome = try await vault.run(["migrate", "--status"])
        #expect(outcome.status == MigrateCommand.pendingExitCode)
        #expect(outcome.stdout.contains("is at migration 0"))
        #expect(outcome.stdout.contains("  1 "))
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("data/vault.sqlite")))
    }
}
