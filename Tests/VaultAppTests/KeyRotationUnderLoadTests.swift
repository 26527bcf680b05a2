import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import Vault
import VaultSQLite
@testable import VaultAppTestSupport

/// `vault keys rotate` while a `vault serve` process answers a steady stream of registrations and
/// retrievals: not one 5xx, also for merchants whose keys the server first meets under the new
/// master key (rewrapped, or created after the rotation), and after a SIGHUP.
@Suite struct KeyRotationUnderLoadTests {
    /// Status codes seen, by class.
    final class Tally: Sendable {
        private let codes = Mutex<[Int: Int]>([:])

        func record(_ status: Int) { codes.withLock { $0[status, default: 0] += 1 } }
        var all: [Int: Int] { codes.withLock { $0 } }
        var serverErrors: Int { all.filter { $0.key >= 500 }.values.reduce(0, +) }
    }

    /// Set once, read by many tasks.
    final class Flag: Sendable {
        private let value = Atomic(false)

        func raise() { value.store(true, ordering: .sequentiallyConsistent) }
        var isRaised: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    static func send(_ method: HTTPMethod, _ url: String, key: String, json: String? = nil) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    static func createMerchant(_ vault: VaultProcess, _ name: String) async throws -> String {
        let created = try await vault.run(["merchant", "create", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any]
        return try #require(object?["apiKey"] as? String, "\(created.stderr)")
    }

    /// One registration and one retrieval of the card just registered.
    static func registerAndRetrieve(base: String, key: String, reference: String, tally: Tally) async throws {
        tally.record(try await send(.POST, base, key: key, json: keyedCard(reference, verify: false)))
        tally.record(try await send(.GET, base + "/" + reference, key: key))
    }

    @Test func rotatingTheMasterKeyUnderLoadAnswersNo5xx() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        var merchants: (warm: [String], cold: [String]) = ([], [])
        for index in 0..<2 {
            merchants.warm.append(try await Self.createMerchant(vault, "warm-\(index)"))
            merchants.cold.append(try await Self.createMerchant(vault, "cold-\(index)"))
        }
        let (warm, cold) = merchants
        let server = try vault.start(["serve"], environment: ["VAULT_PORT": "0"])
        defer {
            server.terminateAndReap()
        }
        let port = try #require(try await ServerProcess.waitForPort(server))
        let base = "http://127.0.0.1:\(port)/v1/secure-cards"
        let tally = Tally()
        for (index, key) in warm.enumerated() {
            try await Self.registerAndRetrieve(base: base, key: key, reference: "warm-\(index)-first", tally: tally)
        }

        let rotated = Flag()
        let rotating = vault
        let rotation = Task.detached {
            defer { rotated.raise() }
            return try await rotating.run(["keys", "rotate"])
        }
        // Sixteen clients keep registering and retrieving until the rotation has finished, then a few rounds more.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<16 {
                group.addTask {
                    var round = 0
                    var after = 0
                    while after < 3 {
                        if rotated.isRaised { after += 1 }
                        let key = warm[client % warm.count]
                        try await Self.registerAndRetrieve(base: base, key: key, reference: "load-\(client)-\(round)", tally: tally)
                        round += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        let outcome = try await rotation.value
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("removed retired versions"))

        // Keys the server never unwrapped before: rewrapped under version 2, and a merchant created after the rotation.
        let created = try await Self.createMerchant(vault, "after-rotation")
        for (index, key) in (cold + [created]).enumerated() {
            try await Self.registerAndRetrieve(base: base, key: key, reference: "new-\(index)", tally: tally)
        }
        // SIGHUP reads the key file again; the server keeps serving.
        kill(server.pid, SIGHUP)
        for (index, key) in (warm + cold + [created]).enumerated() {
            try await Self.registerAndRetrieve(base: base, key: key, reference: "hup-\(index)", tally: tally)
        }
        #expect(server.isRunning)
        #expect(tally.serverErrors == 0, "\(tally.all)")
        #expect(Set(tally.all.keys).isSubset(of: [200, 201]), "\(tally.all)")
        #expect(tally.all.values.reduce(0, +) >= 16 * 3 * 2)
    }

    @Test func aServerIdleThroughARotationIsReadyAfterItWithoutARequestOrSIGHUP() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        _ = try await Self.createMerchant(vault, "acme")
        let server = try vault.start(["serve"], environment: ["VAULT_PORT": "0"])
        defer {
            server.terminateAndReap()
        }
        let port = try #require(try await ServerProcess.waitForPort(server))
        let readyz = "http://127.0.0.1:\(port)/readyz"
        #expect(try await Self.send(.GET, readyz, key: "") == 200)
        let rotation = try await vault.run(["keys", "rotate"])
        #expect(rotation.status == 0, "\(rotation.stderr)")
        // Behind a readiness probe nothing else reaches the server: the probe itself must recover.
        #expect(try await Self.send(.GET, readyz, key: "") == 200)
    }
}
