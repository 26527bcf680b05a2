import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Turnover is approved sales and captures less approved refunds, per currency;
/// declined, voided and unsettled payments never count in it, and the counts per status are reported
/// apart. Payments are made through the API and the expected figures summed here from what was done.
@Suite struct StatisticsTurnoverTests {
    /// What the test did, in the terms of the rule: money in, money back, or no money.
    struct Done {
        var currency: String
        var amount: Int
        var effect: Effect
        /// The payment's status per `byStatus` (sales and authorizations only).
        var status: String?
        enum Effect { case payment, refund, none }
    }

    @Test func turnoverIsApprovedSalesAndCapturesLessRefundsAndStatusesAreCountedApart() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            var done: [Done] = []
            func sale(_ amount: Int, _ currency: String = "USD", number: String = "4242424242424242", type: String = "sale") async throws -> String {
                let body = TransactionRoutesTests.rawSale(number, amount: amount, type: type).replacingOccurrences(of: "\"USD\"", with: "\"\(currency)\"")
                let response = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
                return try #require((response.json["id"] ?? (response.json["transaction"] as? [String: Any])?["id"]) as? String, "\(response.text)")
            }
            func follow(_ id: String, _ action: String, amount: Int? = nil) async throws {
                let response = try await client.send(.post, "/v1/transactions/\(id)/\(action)", key: fixture.adminA, json: amount.map { #"{"amount": \#($0)}"# })
                #expect(response.status == .created, "\(action): \(response.text)")
            }

            _ = try await sale(1250); done.append(Done(currency: "USD", amount: 1250, effect: .payment, status: "approved"))
            _ = try await sale(999); done.append(Done(currency: "USD", amount: 999, effect: .payment, status: "approved"))
            _ = try await sale(3000, number: "4000000000000002"); done.append(Done(currency: "USD", amount: 3000, effect: .none, status: "declined"))
            _ = try await sale(2000, number: "4000000000009995"); done.append(Done(currency: "USD", amount: 2000, effect: .none, status: "declined"))
            let authorization = try await sale(5000, type: "authorize")
            try await follow(authorization, "capture", amount: 4000)
            done.append(Done(currency: "USD", amount: 5000, effect: .none, status: "captured"))
            done.append(Done(currency: "USD", amount: 4000, effect: .payment))
            _ = try await sale(700, type: "authorize"); done.append(Done(currency: "USD", amount: 700, effect: .none, status: "approved"))
            let voided = try await sale(800)
            try await follow(voided, "void"); done.append(Done(currency: "USD", amount: 800, effect: .none, status: "voided"))
            let partly = try await sale(1500)
            try await follow(partly, "refund", amount: 500)
            done.append(Done(currency: "USD", amount: 1500, effect: .payment, status: "partially_refunded"))
            done.append(Done(currency: "USD", amount: 500, effect: .refund))
            let euros = try await sale(2000, "EUR")
            try await follow(euros, "refund")
            done.append(Done(currency: "EUR", amount: 2000, effect: .payment, status: "refunded"))
            done.append(Done(currency: "EUR", amount: 2000, effect: .refund))

            let today = CivilDate.today(in: TimeZone(identifier: "UTC")!, now: Date())
            let stats = try await client.send(
                .get, "/v1/stats?from=\(today.adding(days: -1).iso)&to=\(today.adding(days: 1).iso)&groupBy=year", key: fixture.adminA)
            #expect(stats.status == .ok, "\(stats.text)")
            #expect(stats.json["currencies"] as? [String] == ["EUR", "USD"])
            var answered: [String: (count: Int, turnover: Int, byStatus: [String: (count: Int, sum: Int)])] = [:]
            for group in stats.json["groups"] as? [[String: Any]] ?? [] {
                for entry in group["byCurrency"] as? [[String: Any]] ?? [] {
                    let currency = try #require(entry["currency"] as? String)
                    var figures = answered[currency] ?? (0, 0, [:])
                    figures.count += entry["count"] as? Int ?? 0
                    figures.turnover += entry["turnover"] as? Int ?? 0
                    for (status, value) in entry["byStatus"] as? [String: [String: Any]] ?? [:] {
                        let previous = figures.byStatus[status] ?? (0, 0)
                        figures.byStatus[status] = (previous.count + (value["count"] as? Int ?? 0), previous.sum + (value["amount"] as? Int ?? 0))
                    }
                    answered[currency] = figures
                }
            }
            for currency in ["USD", "EUR"] {
                let mine = done.filter { $0.currency == currency }
                let payments = mine.filter { $0.effect == .payment }
                let turnover = payments.reduce(0) { $0 + $1.amount } - mine.filter { $0.effect == .refund }.reduce(0) { $0 + $1.amount }
                #expect(answered[currency]?.turnover == turnover, "\(currency) turnover")
                #expect(answered[currency]?.count == payments.count, "\(currency) count")
                var byStatus: [String: (count: Int, sum: Int)] = [:]
                for entry in mine { if let status = entry.status { byStatus[status, default: (0, 0)] = (byStatus[status, default: (0, 0)].count + 1, byStatus[status, default: (0, 0)].sum + entry.amount) } }
                #expect(answered[currency]?.byStatus.mapValues { "\($0.count)/\($0.sum)" } == byStatus.mapValues { "\($0.count)/\($0.sum)" }, "\(currency)")
            }
            #expect(answered["USD"]?.turnover == 7249)
            #expect(answered["EUR"]?.turnover == 0)
        }
    }
    @Test func eachStatusFigureIsNamedForWhatItSumsAndCapturesComeFromCapturedAmounts() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            func pay(_ amount: Int, number: String = "4242424242424242", type: String = "sale") async throws -> String {
                let response = try await client.send(
                    .post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(number, amount: amount, type: type))
                return try #require((response.json["id"] ?? (response.json["transaction"] as? [String: Any])?["id"]) as? String, "\(response.text)")
            }
            let authorization = try await pay(5000, type: "authorize")
            let captured = try await client.send(.post, "/v1/transactions/\(authorization)/capture", key: fixture.adminA, json: #"{"amount": 3000}"#)
            #expect(captured.status == .created, "\(captured.text)")
            _ = try await pay(2000, number: "4000000000000002")
            let partly = try await pay(1500)
            let refund = try await client.send(.post, "/v1/transactions/\(partly)/refund", key: fixture.adminA, json: #"{"amount": 400}"#)
            #expect(refund.status == .created, "\(refund.text)")

            let today = CivilDate.today(in: TimeZone(identifier: "UTC")!, now: Date())
            let stats = try await client.send(
                .get, "/v1/stats?from=\(today.adding(days: -1).iso)&to=\(today.adding(days: 1).iso)&groupBy=year&currency=USD", key: fixture.adminA)
            #expect(stats.status == .ok, "\(stats.text)")
            var byStatus: [String: [String: Any]] = [:]
            for group in stats.json["groups"] as? [[String: Any]] ?? [] {
                for entry in group["byCurrency"] as? [[String: Any]] ?? [] {
                    for (status, figures) in entry["byStatus"] as? [String: [String: Any]] ?? [:] { byStatus[status] = figures }
                }
            }
            let capturedFigures = try #require(byStatus["captured"])
            #expect(capturedFigures["turnover"] == nil)
            #expect(capturedFigures["amount"] as? Int == 5000)
            #expect(capturedFigures["capturedAmount"] as? Int == 3000)
            let declined = try #require(byStatus["declined"])
            #expect(declined["turnover"] == nil)
            #expect(declined["amount"] as? Int == 2000)
            #expect(declined["capturedAmount"] as? Int == 0)
            let refunded = try #require(byStatus["partially_refunded"])
            #expect(refunded["amount"] as? Int == 1500)
            #expect(refunded["refundedAmount"] as? Int == 400)
            #expect(refunded["voidedAmount"] as? Int == 0)
        }
    }
}
