import Foundation
import PostgresNIO
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// Two `PostgresStore`s on one database stand for two servers.
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

    @Test func oneIdempotencyKeyClaimedOnTwoServersAtOnceStartsOnce() async throws {
        try await withTwoServers { first, second in
            try await Self.insertMerchant("mer_idem", callback: nil, on: first)
            let mac = [UInt8](repeating: 7, count: 32)
            let claims = try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
                for index in 0..<16 {
                    let store = index % 2 == 0 ? first : second
                    group.addTask {
                        try await store.claimIdempotencyKey(merchantID: "mer_idem", key: "k1", requestMAC: mac, legacyRequestMAC: { mac }, now: Date())
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.filter { $0 == .started }.count == 1)
            #expect(claims.filter { $0 == .inProgress }.count == 15)
            // A different body under the same key is a mismatch, on either server.
            let other = try await second.claimIdempotencyKey(
                merchantID: "mer_idem", key: "k1", requestMAC: [UInt8](repeating: 8, count: 32), legacyRequestMAC: { [] }, now: Date())
            #expect(other == .mismatch)
        }
    }

    @Test func webhookEventsClaimedOnTwoServersAtOnceGoToOneDelivererEach() async throws {
        try await withTwoServers { first, second in
            try await Self.insertMerchant("mer_hooks", callback: "https://example.com/hook", on: first)
            let now = Date()
            try await first.write { transaction in
                for index in 0..<60 {
                    try await transaction.enqueueWebhook(
                        .secureCardRegistered, merchantID: "mer_hooks", data: ["n": .int(Int64(index))], now: now.addingTimeInterval(-60))
                }
            }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<6 {
                    let store = index % 2 == 0 ? first : second
                    group.addTask {
                        var ids: [String] = []
                        while true {
                            let batch = try await store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 4)
                            if batch.isEmpty { return ids }
                            ids += batch.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(claimed.count == 60)
            #expect(Set(claimed).count == 60)
        }
    }

    static func insertMerchant(_ id: String, callback: String?, on store: PostgresStore) async throws {
        try await store.write { transaction in
            try await transaction.run(
                """
                INSERT INTO merchants (id, seq, name, status, gateway, time_zone, callback_url, created_at, updated_at)
                VALUES (\(id), (SELECT coalesce(max(seq), 0) + 1 FROM merchants), \(id), 'active', 'test', 'UTC', \(callback),
                    '2026-11-24T00:00:00.000Z', '2026-11-24T00:00:00.000Z')
                """)
        }
    }
}
