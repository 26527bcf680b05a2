import Foundation
@testable import GatewayFakes
import Payments
import Testing

/// The Authorize.Net fake's charge ledger (`fake-gateway --ledger`), which scripts/crash-test.sh
/// compares with the vault's records.
@Suite struct AuthorizeNetLedgerTests {
    typealias F = GatewayFixtures

    /// Runs `body` with a fake appending to a fresh ledger file, and the adapter pointed at it.
    func withLedgerFake(_ body: (String, AuthorizeNetGateway) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("anet-ledger-\(UUID().uuidString).tsv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fake = try await FakeAuthorizeNetServer.start(ledger: path)
        let gateway = AuthorizeNetGateway(apiLoginID: FakeAuthorizeNetServer.apiLoginID,
                                          transactionKey: FakeAuthorizeNetServer.transactionKey, endpoint: fake.url,
                                          timeout: .seconds(30), logger: GatewayFixtures.quietLogger)
        do {
            try await body(path, gateway)
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    func lines(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func everyChargeIsInTheLedgerBeforeItsAnswerArrives() async throws {
        try await withLedgerFake { path, gateway in
            let approved = await gateway.sale(F.charge("k1", reference: "sLEDGER1a1"))
            #expect(approved.outcome == .approved)
            let afterFirst = try lines(path)
            #expect(afterFirst.count == 1)
            #expect(afterFirst.first?[0] == "authCaptureTransaction")
            #expect(afterFirst.first?[1] == "sLEDGER1a1")
            #expect(afterFirst.first?[2] == approved.transactionID)
            #expect(afterFirst.first?[3] == "1")
            let declined = await gateway.sale(F.charge("k2", reference: "sLEDGER2a1", card: F.card(zip: "46282")))
            #expect(declined.outcome != .approved)
            let afterSecond = try lines(path)
            #expect(afterSecond.last == ["authCaptureTransaction", "sLEDGER2a1", declined.transactionID ?? "?", "2"])
        }
    }

    @Test func aResentChargeRefusedAsADuplicateIsNotInTheLedger() async throws {
        try await withLedgerFake { path, gateway in
            _ = await gateway.sale(F.charge("attempt-1", reference: "sLEDGER3a1"))
            _ = await gateway.sale(F.charge("attempt-1-rerun", reference: "sLEDGER3a1"))
            let bad = await gateway.sale(F.charge("bad", reference: "sLEDGER4a1", amount: F.money(0)))
            #expect(bad.outcome != .approved)
            let references = try lines(path).map { $0[1] }
            #expect(references == ["sLEDGER3a1"])
        }
    }
}
