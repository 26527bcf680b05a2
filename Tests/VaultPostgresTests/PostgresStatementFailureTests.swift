import Foundation
import NIOCore
import PostgresNIO
import Testing
import StorageTestSupport
@testable import VaultPostgres

/// Which errors fail one statement of a group (the charge outcomes' savepoints, the sandbox's
/// grouped charges) and which fail the group: a statement the server refused is reported alone and
/// the transaction goes on; a lost connection, a lost server or a commit of unknown outcome must
/// fail every statement, never be recorded as one item's error.
@Suite("PostgreSQL: a statement's failure or the group's", .postgres)
struct PostgresStatementFailureTests {
    @Test func errorsOfTheCallerOrOfNoConnectionAreClassifiedWithoutAServer() {
        #expect(PostgresFailure.isOfTheStatementAlone(CancellationError()))
        #expect(PostgresFailure.isOfTheStatementAlone(PostgresStoreError.uniqueViolation(constraint: "meta_pkey")))
        #expect(!PostgresFailure.isOfTheStatementAlone(PostgresStoreError.connectionClosed))
        #expect(!PostgresFailure.isOfTheStatementAlone(PostgresFailoverError.commitOutcomeUnknown))
        #expect(!PostgresFailure.isOfTheStatementAlone(PostgresFailoverError.noServer("127.0.0.1:1: refused")))
        #expect(!PostgresFailure.isOfTheStatementAlone(ChannelError.ioOnClosedChannel))
    }

    @Test func aRefusedStatementFailsItsSavepointAloneAndTheTransactionGoesOn() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            let outcomes = try await store.write { write in
                let first = try await PostgresStore.eachInSavepoint(write) { try await write.run("INSERT INTO meta (key, value) VALUES ('k', 'v')") }
                let refused = try await PostgresStore.eachInSavepoint(write) { try await write.run("INSERT INTO meta (key, value) VALUES ('k', 'w')") }
                let after = try await PostgresStore.eachInSavepoint(write) { try await write.run("INSERT INTO meta (key, value) VALUES ('k2', 'x')") }
                return [first.failure == nil, refused.failure != nil, after.failure == nil]
            }
            #expect(outcomes == [true, true, true])
            let keys = try await store.read { connection in
                try await connection.rows("SELECT key FROM meta WHERE key IN ('k', 'k2') ORDER BY key", logger: PostgresTestDatabase.logger).map { try $0.string("key") }
            }
            #expect(keys == ["k", "k2"])
        }
    }

    @Test func aConnectionTheServerTerminatedFailsTheGroup() async throws {
        try await PostgresTestDatabase.withDatabase { url in
            let connection = try await PostgresConnection.connect(
                configuration: try url.connectionConfiguration(host: url.hosts[0], connectTimeout: .seconds(10)), id: 1,
                logger: PostgresTestDatabase.logger)
            // The backend signals itself; the termination answers this statement or the next one.
            var failure: (any Error)?
            for statement: PostgresQuery in ["SELECT pg_terminate_backend(pg_backend_pid())", "SELECT 1"] where failure == nil {
                do {
                    _ = try await connection.query(statement, logger: PostgresTestDatabase.logger).collect()
                } catch {
                    failure = error
                }
            }
            let error = try #require(failure, "the server answered a statement on a connection it terminated")
            #expect(!PostgresFailure.isOfTheStatementAlone(error), "\(String(reflecting: error))")
            try? await connection.close()
        }
    }
}
