import Foundation
import PostgresNIO
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// Two `PostgresStore`s on one database stand for two servers: the per-merchant audit chains of
/// PostgreSQL (overflow chains, per-chain reports). What every engine guarantees to several stores
/// on one database (the chain verifies after concurrent appends, one idempotency winner, one
/// deliverer per webhook event) is pinned by the store conformance suite.
@Suite("PostgreSQL: several servers on one database", .postgres)
struct PostgresConcurrencyTests {
    /// Two stores over one fresh database, each with its keyring over the same master key.
    func withTwoServers(_ body: (PostgresStore, PostgresStore) async throws -> Void) async throws {
        try await PostgresTestDatabase.withDatabase { url in
            let masterKey = try SecureBytes.random(count: 32)
            let first = try await PostgresStore(url: url, logger: PostgresTestDatabase.logger)
            defer { first.close() }
            let second = try await PostgresStore(url: url, logger: PostgresTestDatabase.logger)
            defer { second.close() }
            _ = try await PostgresTestDatabase.openKeyring(over: first, masterKey: masterKey)
            _ = try await PostgresTestDatabase.openKeyring(over: second, masterKey: masterKey)
            try await body(first, second)
        }
    }

    @Test func concurrentAuditWritersOnTwoServersKeepEveryMerchantsChainIntact() async throws {
        try await withTwoServers { first, second in
            let merchants = ["mer_one", "mer_two", "mer_three"]
            let before = try await first.auditEvents(merchantID: nil, before: nil, limit: 1000).count
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (server, store) in [first, second].enumerated() {
                    for worker in 0..<4 {
                        group.addTask {
                            for index in 0..<50 {
                                let merchant = merchants[(worker + index) % merchants.count]
                                try await store.appendAudit(AuditEntry(
                                    merchantID: merchant, actor: "server\(server)", action: "test.event", objectType: "t", objectID: "\(worker)-\(index)"))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Writers that found a merchant's chain locked took its overflow chains (`mer_one/1`, ...).
            let reports = try await first.auditChainReports()
            var total: Int64 = 0
            for merchant in merchants {
                let chains = reports.filter { PostgresAuditChains.chains(of: merchant).contains($0.chain) }
                #expect(chains.contains { $0.chain == merchant })
                for report in chains {
                    guard case .intact(let events) = report.verification else {
                        Issue.record("chain \(report.chain) is not intact: \(report.verification)")
                        continue
                    }
                    total += events
                }
            }
            #expect(total == 400)
            #expect(try await second.verifyAuditChain() == .intact(events: Int64(before + 400)))
        }
    }

    @Test func anEditedAuditEventIsDetectedInItsChain() async throws {
        try await withTwoServers { first, second in
            for index in 0..<5 {
                try await first.appendAudit(AuditEntry(merchantID: "mer_a", actor: "cli", action: "a", objectType: "t", objectID: "\(index)"))
                try await second.appendAudit(AuditEntry(merchantID: "mer_b", actor: "cli", action: "b", objectType: "t", objectID: "\(index)"))
            }
            try await first.write { transaction in
                try await transaction.run("UPDATE audit_events SET object_id = 'edited' WHERE chain = 'mer_a' AND chain_seq = 3")
            }
            let reports = try await second.auditChainReports()
            #expect(reports.first { $0.chain == "mer_a" }?.verification == .broken(sequence: 3, reason: "its contents do not match its hash (edited)"))
            #expect(reports.first { $0.chain == "mer_b" }?.verification == .intact(events: 5))
            guard case .broken(_, let reason) = try await first.verifyAuditChain() else {
                Issue.record("an edited chain verified")
                return
            }
            #expect(reason.hasPrefix("chain mer_a:"))
        }
    }

    @Test func eventsDeletedFromAChainsEndOrMovedToAnotherChainAreDetected() async throws {
        try await withTwoServers { first, _ in
            for index in 0..<3 {
                try await first.appendAudit(AuditEntry(merchantID: "mer_a", actor: "cli", action: "a", objectType: "t", objectID: "\(index)"))
                try await first.appendAudit(AuditEntry(merchantID: "mer_b", actor: "cli", action: "b", objectType: "t", objectID: "\(index)"))
            }
            try await first.write { try await $0.run("DELETE FROM audit_events WHERE chain = 'mer_a' AND chain_seq = 3") }
            try await first.write { try await $0.run("UPDATE audit_events SET merchant_id = 'mer_a' WHERE chain = 'mer_b' AND chain_seq = 1") }
            let reports = try await first.auditChainReports()
            #expect(reports.first { $0.chain == "mer_a" }?.verification
                == .broken(sequence: 3, reason: "the chain ends before the recorded head (events were deleted from the end)"))
            #expect(reports.first { $0.chain == "mer_b" }?.verification
                == .broken(sequence: 1, reason: "the event belongs to another merchant's chain (moved)"))
        }
    }
}
