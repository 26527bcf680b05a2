import Testing
@testable import VaultPostgres

@Suite("PostgresURL")
struct PostgresURLTests {
    @Test func readsUserPasswordHostPortDatabaseAndSSLMode() throws {
        let url = try PostgresURL("postgres://vault:s%40cret@db.internal:6432/billing?sslmode=verify-full&application_name=vault-1")
        #expect(url.username == "vault")
        #expect(url.password == "s@cret")
        #expect(url.hosts == [.init(name: "db.internal", port: 6432)])
        #expect(url.database == "billing")
        #expect(url.tlsMode == .verifyFull)
        #expect(url.applicationName == "vault-1")
        #expect(url.targetSession == .any)
    }

    @Test func defaultsToPort5432AndPreferredTLSAsLibpqDoes() throws {
        let url = try PostgresURL("postgresql://vault@localhost/vault")
        #expect(url.hosts == [.init(name: "localhost", port: 5432)])
        #expect(url.tlsMode == .prefer)
        #expect(url.password == nil)
    }

    @Test func readsSeveralHostsForAPrimaryAndItsStandby() throws {
        let url = try PostgresURL("postgres://vault@127.0.0.1:5001,127.0.0.1:5002,[::1]:5003/vault?target_session_attrs=read-write")
        #expect(url.hosts.map(\.port) == [5001, 5002, 5003])
        #expect(url.hosts[2].name == "::1")
        #expect(url.targetSession == .readWrite)
    }

    @Test func neverShowsThePasswordInItsDescription() throws {
        let url = try PostgresURL("postgres://vault:hunter2@db:5432/vault?sslmode=require")
        #expect(!url.description.contains("hunter2"))
        #expect(url.description == "postgres://vault:***@db:5432/vault?sslmode=require")
    }

    @Test(arguments: [
        "mysql://vault@db/vault",
        "postgres://db:5432/vault",
        "postgres://vault@db:5432/",
        "postgres://vault@db:70000/vault",
        "postgres://vault@db:5432/vault?sslmode=allow-anything",
        "postgres://vault@db:5432/vault?ssl_mode=require",
        "postgres://vault@db:5432/vault?target_session_attrs=standby",
        "postgres://vault@:5432/vault",
        "db:5432/vault",
    ])
    func refusesMalformedURLsWithoutEchoingAPassword(_ text: String) {
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL(text) }
    }

    @Test func aRefusedURLDoesNotRepeatItsPassword() {
        do {
            _ = try PostgresURL("postgres://vault:hunter2@db:99999/vault")
            Issue.record("accepted a port out of range")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}
