import Foundation
import PostgresNIO
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// The round trips of the hot API paths on PostgreSQL (registrations once ran at 0.05 of
/// pgbench's insert rate): what one registration, one authentication and one card lookup send, and
/// that the registration's single write statement and its audit statement still commit together
/// or not at all.
@Suite("PostgreSQL: registration path", .postgres)
struct PostgresRegistrationPathTests {
    static let gateways = MerchantGatewayRules([(name: "sandbox", credentialNames: [])])

    /// A store with a keyring, a merchant and its API key, and the card service over them.
    func withMerchant(
        _ body: (PostgresStore, Merchant, IssuedAPIKey, SecureCardService) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.withStore { store, keyring in
            let merchants = MerchantService(store: store, keyring: keyring, defaultTimeZone: "UTC", defaultGateway: "sandbox", gateways: Self.gateways)
            let (merchant, key) = try await merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
            try await body(store, merchant, key, SecureCardService(store: store, keyring: keyring, verifier: VerifiedCards()))
        }
    }

    func registration(_ reference: String) -> SecureCardRegistration {
        SecureCardRegistration(
            merchantReference: reference,
            source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace", cvv: nil)),
            customer: Customer(email: "ada@example.com", country: "GB"), verify: false)
    }

    /// The statements `body` sends, in order.
    func statements(_ body: () async throws -> Void) async throws -> [String] {
        let counter = PostgresStatementCounter()
        try await PostgresStatementCounter.$current.withValue(counter) { try await body() }
        #expect(counter.count == counter.statements.count)
        return counter.statements
    }

    func count(_ sql: String, on store: PostgresStore) async throws -> Int {
        try await store.read { try await $0.row(PostgresQuery(unsafeSQL: sql), logger: PostgresTestDatabase.logger)?.int("n") ?? -1 }
    }

    /// The statements of one registration not the path's own removed: the keyring may reread the
    /// key generation (at most every 2 s).
    func registrationStatements(_ body: () async throws -> Void) async throws -> (beforeBegin: [String], body: [String], all: [String]) {
        let own = try await statements(body).filter { !$0.contains("key_generation") }
        let firstBegin = own.firstIndex(where: { $0.hasPrefix("BEGIN") })
        let begin = try #require(firstBegin)
        #expect(own.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(own.last == "COMMIT")
        return (Array(own[..<begin]), Array(own[(begin + 1)..<(own.count - 1)]), own)
    }

    @Test func aRegistrationAfterItsAuthenticationIsOneTransactionOfThreeStatements() async throws {
        try await withMerchant { store, merchant, key, cards in
            // Authentication reads the definitions with the key, in its one statement.
            var credential: APIKeyCredential?
            let authentication = try await statements { credential = try await store.apiKeyCredential(id: key.record.id) }
            #expect(authentication.count == 1)
            let definitions = try #require(credential).customFields
            _ = try await cards.register(registration("warm-up"), merchant: merchant, actor: "test", definitions: definitions)
            let (beforeBegin, body, own) = try await registrationStatements {
                _ = try await cards.register(registration("counted"), merchant: merchant, actor: "test", definitions: definitions)
            }
            // Nothing before the transaction: the definitions came with the key.
            #expect(beforeBegin.isEmpty, "\(own)")
            // In it: the card with its names and webhook event; the chain head; the audit event with the head.
            #expect(body.count == 3, "\(own)")
            #expect(body.first?.contains("INSERT INTO secure_cards") == true)
            #expect(body.first?.contains("INSERT INTO webhook_events") == true)
            #expect(body.last?.contains("INSERT INTO audit_events") == true)
            #expect(body.last?.contains("UPDATE audit_chains") == true)
            // The card row is written once: no second UPDATE for name_indexed.
            #expect(!own.contains { $0.contains("UPDATE secure_cards") })

            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_cards WHERE name_indexed = 1 AND merchant_reference = 'counted'", on: store) == 1)
            #expect(try await count(
                "SELECT count(*)::bigint AS n FROM secure_card_names n JOIN secure_cards c ON c.id = n.secure_card_id WHERE c.merchant_reference = 'counted'",
                on: store) == 2)
            #expect(try await count(
                "SELECT count(*)::bigint AS n FROM webhook_events WHERE type = 'secure_card.registered' AND last_error = 'no callbackUrl'", on: store) == 2)
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store))))
            // The holder name is searchable at once, as before.
            let found = try await cards.list(merchant: merchant, query: { var query = SecureCardQuery(limit: 10); query.holderName = "ada lovelace"; return query }())
            #expect(found.count == 2)
        }
    }

    @Test func aRegistrationNotGivenTheDefinitionsReadsThemOnceBeforeItsTransaction() async throws {
        try await withMerchant { _, merchant, _, cards in
            _ = try await cards.register(registration("warm-up"), merchant: merchant, actor: "test")
            let (beforeBegin, body, own) = try await registrationStatements {
                _ = try await cards.register(registration("counted"), merchant: merchant, actor: "test")
            }
            #expect(beforeBegin.count == 1, "\(own)")
            #expect(beforeBegin.allSatisfy { $0.contains("custom_field_definitions") })
            #expect(body.count == 3, "\(own)")
        }
    }

    @Test func aTakenReferenceIsStillRefusedAndChangesNothing() async throws {
        try await withMerchant { store, merchant, _, cards in
            _ = try await cards.register(registration("taken"), merchant: merchant, actor: "test")
            let events = try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store)
            await #expect(throws: SecureCardError.referenceTaken("taken")) {
                _ = try await cards.register(registration("taken"), merchant: merchant, actor: "test")
            }
            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_cards", on: store) == 1)
            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_card_names", on: store) == 2)
            #expect(try await count("SELECT count(*)::bigint AS n FROM webhook_events", on: store) == 1)
            #expect(try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store) == events)
        }
    }

    @Test func aRegistrationRefusedAfterItsCardWasWrittenLeavesNoCardNamesOrEventsAndTheChainIntact() async throws {
        try await withMerchant { store, merchant, _, cards in
            _ = try await cards.register(registration("before"), merchant: merchant, actor: "test")
            let events = try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store)
            // The audit statement comes after the card's: refusing it must take the card back too.
            try await store.write { write in
                try await write.run(
                    """
                    CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN IF NEW.action = 'secure_card.registered' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$
                    """)
                try await write.run("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()")
            }
            await #expect(throws: (any Error).self) {
                _ = try await cards.register(registration("refused"), merchant: merchant, actor: "test")
            }
            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_cards", on: store) == 1)
            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_card_names", on: store) == 2)
            #expect(try await count("SELECT count(*)::bigint AS n FROM webhook_events", on: store) == 1)
            #expect(try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store) == events)
            #expect(try await count("SELECT last_seq AS n FROM audit_chains WHERE chain = '\(merchant.id)'", on: store) == 2)
            try await store.write { try await $0.run("DROP TRIGGER refuse_audit ON audit_events") }
            _ = try await cards.register(registration("refused"), merchant: merchant, actor: "test")
            #expect(try await count("SELECT last_seq AS n FROM audit_chains WHERE chain = '\(merchant.id)'", on: store) == 3)
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(events + 1)))
        }
    }

    @Test func authenticationReadsTheKeyAndItsMerchantInOneStatement() async throws {
        try await withMerchant { store, merchant, key, _ in
            var found: APIKeyCredential?
            let sent = try await statements { found = try await store.apiKeyCredential(id: key.record.id) }
            #expect(sent.count == 1)
            let credential = try #require(found)
            // As stored (instants at the stored precision), and as the other reads give them.
            #expect(credential.key == (try await store.apiKeys(merchantID: merchant.id)).first)
            #expect(credential.key.record.id == key.record.id && credential.key.record.role == .admin && credential.key.record.revokedAt == nil)
            #expect(credential.key.secret == key.storedSecret && credential.key.binding == key.binding && credential.key.scheme == .bound)
            #expect(credential.merchant == (try await store.merchant(named: "acme")))
            #expect(credential.merchant?.id == merchant.id)
            // An unknown key: nothing, also in one statement.
            var unknown: APIKeyCredential?
            let missing = try await statements { unknown = try await store.apiKeyCredential(id: "ak_unknown") }
            #expect(missing.count == 1)
            #expect(unknown == nil)
        }
    }

    @Test func aCardLookupIsOneStatement() async throws {
        try await withMerchant { store, merchant, _, cards in
            let card = try await cards.register(registration("looked-up"), merchant: merchant, actor: "test")
            var byReference: SecureCardRow?
            var byToken: SecureCardRow?
            let sent = try await statements {
                byReference = try await store.secureCard(merchantID: merchant.id, merchantReference: "looked-up")
                byToken = try await store.secureCard(merchantID: merchant.id, reference: card.reference)
            }
            #expect(sent.count == 2)
            #expect(byReference?.reference == card.reference)
            #expect(byToken?.merchantReference == "looked-up")
            #expect(try await store.secureCard(merchantID: merchant.id, merchantReference: "absent") == nil)
        }
    }

    @Test func auditEventsOfTwoChainsAndTheirHeadsAreWrittenInOneStatement() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            // The merchants' first events create their chains (a look for a free chain, its name taken, the row inserted).
            for chain in ["mer_a", "mer_b"] {
                try await store.appendAudit(AuditEntry(merchantID: chain, actor: "test", action: "first", objectType: "t", objectID: nil))
            }
            let sent = try await statements {
                try await store.write { transaction in
                    for chain in ["mer_b", "mer_a", "mer_b"] {
                        try await transaction.appendAudit(AuditEntry(merchantID: chain, actor: "test", action: "a", objectType: "t", objectID: nil))
                    }
                }
            }
            // BEGIN, the two heads locked in name order, the events with the heads, COMMIT.
            #expect(sent.count == 5, "\(sent)")
            #expect(sent[1].contains("FOR UPDATE SKIP LOCKED") && sent[2].contains("FOR UPDATE SKIP LOCKED"))
            #expect(sent[3].contains("INSERT INTO audit_events") && sent[3].contains("UPDATE audit_chains"))
            let reports = try await store.auditChainReports()
            #expect(reports.first { $0.chain == "mer_a" }?.verification == .intact(events: 2))
            #expect(reports.first { $0.chain == "mer_b" }?.verification == .intact(events: 3))
            // The heads were written: a tail deleted afterwards is detected.
            try await store.write { try await $0.run("DELETE FROM audit_events WHERE chain = 'mer_b' AND chain_seq = 3") }
            #expect(try await store.auditChainReports().first { $0.chain == "mer_b" }?.verification != .intact(events: 2))
        }
    }

    @Test func aReadOfOneStatementWhoseConnectionIsLostRunsAgainOnAnotherConnection() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            var runs = 0
            let answer = try await store.readStatement { connection in
                runs += 1
                if runs == 1 {
                    // The server ends this connection under the statement (57P01), as when it restarts.
                    try await connection.run("SELECT pg_terminate_backend(pg_backend_pid())", logger: PostgresTestDatabase.logger)
                }
                return try await connection.row("SELECT 42 AS n", logger: PostgresTestDatabase.logger)?.int("n")
            }
            #expect(runs == 2)
            #expect(answer == 42)
        }
    }

    @Test func aWriterThatFindsItsMerchantsChainLockedTakesAnOverflowChainWithoutWaiting() async throws {
        try await PostgresTestDatabase.withStore { store, _ in
            try await store.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "first", objectType: "t", objectID: nil))
            try await store.write { holder in
                // Another writer holds the merchant's chain head until this transaction ends.
                try await holder.run("SELECT 1 FROM audit_chains WHERE chain = 'mer_a' FOR UPDATE")
                try await store.write { other in
                    // Waiting for the held head would fail here instead of hanging the test.
                    try await other.run("SET LOCAL lock_timeout = '5s'")
                    try await other.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "beside", objectType: "t", objectID: nil))
                }
                try await holder.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "held", objectType: "t", objectID: nil))
            }
            let placed = try await store.read { connection in
                try await connection.rows("SELECT action, chain, chain_seq FROM audit_events WHERE merchant_id = 'mer_a' ORDER BY seq", logger: PostgresTestDatabase.logger)
                    .map { "\(try $0.string("action"))@\(try $0.string("chain"))#\(try $0.int("chain_seq"))" }
            }
            #expect(placed == ["first@mer_a#1", "beside@mer_a/1#1", "held@mer_a#2"])
            let reports = try await store.auditChainReports()
            #expect(reports.first { $0.chain == "mer_a" }?.verification == .intact(events: 2))
            #expect(reports.first { $0.chain == "mer_a/1" }?.verification == .intact(events: 1))
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store))))
            // Without contention a merchant's events stay on its first chain.
            try await store.appendAudit(AuditEntry(merchantID: "mer_a", actor: "test", action: "later", objectType: "t", objectID: nil))
            #expect(try await count("SELECT last_seq AS n FROM audit_chains WHERE chain = 'mer_a'", on: store) == 3)
        }
    }

    @Test func everyChainOfOneMerchantVerifiesAfterManyConcurrentRegistrations() async throws {
        try await withMerchant { store, merchant, _, cards in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0..<10 {
                            _ = try await cards.register(registration("c-\(worker)-\(index)"), merchant: merchant, actor: "test")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let reports = try await store.auditChainReports().filter { PostgresAuditChains.chains(of: merchant.id).contains($0.chain) }
            var registered: Int64 = 0
            for report in reports {
                guard case .intact(let events) = report.verification else {
                    Issue.record("\(report.chain): \(report.verification)")
                    continue
                }
                registered += events
            }
            // The merchant's creation events and the 80 registrations, each on exactly one chain.
            let all = try await count("SELECT count(*)::bigint AS n FROM audit_events WHERE merchant_id = '\(merchant.id)'", on: store)
            #expect(registered == Int64(all))
            #expect(try await count("SELECT count(*)::bigint AS n FROM audit_events WHERE action = 'secure_card.registered'", on: store) == 80)
            #expect(try await count("SELECT count(*)::bigint AS n FROM secure_cards", on: store) == 80)
            #expect(try await store.verifyAuditChain() == .intact(events: Int64(try await count("SELECT count(*)::bigint AS n FROM audit_events", on: store))))
        }
    }
}
