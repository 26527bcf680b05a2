import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Payments
import Scheduler
import Vault
import VaultAPI
import VaultApp

/// One run of the workload: prepares `prepared` records where the operation needs them, then
/// performs `count` operations, each followed by `extraWork`.
///
/// The write-ahead log is emptied before the operations and after every
/// ``BudgetVault/operationsPerCheckpoint`` writes (``BudgetVault/emptyWriteAheadLog()``), so it
/// never reaches the size at which SQLite's background checkpoint starts: how many pages that
/// checkpoint copies depends on when its thread gets to run, which is timing, not work.
struct BudgetWorkload: Sendable {
    let operation: BudgetOperation
    let count: Int
    let prepared: Int
    let extraWork: AllocationLoop

    /// The test card every operation uses: the sandbox approves it.
    static let pan = "4242424242424242"
    /// The day the charged schedules' steps are due, and the run's `asOf` (its last second).
    static let dueDay = "2027-03-02"
    /// The day the prepared schedules beyond `count` are due: after the run's `asOf`, never charged.
    static let laterDay = "2027-06-01"

    func run() async throws {
        if operation == .decodeBody {
            try decodeBodies()
            return
        }
        let vault = try await BudgetVault.open()
        defer { vault.remove() }
        switch operation {
        case .register:
            try await vault.emptyWriteAheadLog()
            try await repeating(count, in: vault) { index in
                _ = try await vault.runtime.cards.register(registration("rc-\(index)"), merchant: vault.merchant, actor: "instruction-budget")
                extraWork.run()
            }
        case .retrieve:
            let references = try await registerCards(prepared, in: vault)
            try await vault.emptyWriteAheadLog()
            try await repeating(count, in: vault) { index in
                try await retrieve(references[index], in: vault)
                extraWork.run()
            }
        case .chargeStep:
            try await prepareSchedules(in: vault)
            try await vault.emptyWriteAheadLog()
            try await chargeDueSteps(in: vault)
        case .httpRegister:
            try await vault.emptyWriteAheadLog()
            try await registerOverHTTP(in: vault)
        case .decodeBody:
            try decodeBodies()
        }
    }

    /// Runs `body` for 0..<`count`, emptying the write-ahead log every
    /// ``BudgetVault/operationsPerCheckpoint`` calls.
    private func repeating(_ count: Int, in vault: BudgetVault, _ body: (Int) async throws -> Void) async throws {
        for index in 0..<count {
            if index > 0, index % BudgetVault.operationsPerCheckpoint == 0 { try await vault.emptyWriteAheadLog() }
            try await body(index)
        }
    }

    private func registration(_ merchantReference: String) -> SecureCardRegistration {
        SecureCardRegistration(
            merchantReference: merchantReference,
            source: CardSource(method: "keyed", card: CardInput(number: Self.pan, expiryDate: "1230", holderName: "Bench Mark")),
            customer: Customer(email: "budget@example.com", country: "US"), verify: false)
    }

    /// Registers `count` cards to retrieve; returns their tokens.
    private func registerCards(_ count: Int, in vault: BudgetVault) async throws -> [String] {
        var references: [String] = []
        try await repeating(count, in: vault) { index in
            let card = try await vault.runtime.cards.register(registration("gc-\(index)"), merchant: vault.merchant, actor: "instruction-budget")
            references.append(card.reference)
        }
        return references
    }

    /// Retrieves the card `reference` as `GET /v1/secure-cards/{token}` does, then commits the
    /// read's audit event.
    private func retrieve(_ reference: String, in vault: BudgetVault) async throws {
        let card = try await vault.runtime.cards.retrieve(reference: reference, merchant: vault.merchant, readBy: "instruction-budget")
        guard card.reference == reference else { throw BudgetFailure("retrieved another card than asked for") }
        try await vault.commitQueuedAuditEvents()
    }

    /// One card and `prepared` confirmed one-payment schedules on it: the first `count` due on
    /// ``dueDay``, the rest on ``laterDay``.
    private func prepareSchedules(in vault: BudgetVault) async throws {
        let created = Timestamp.parse("2027-03-01T12:00:00Z")!
        let card = try await vault.runtime.cards.register(registration("cc-0"), merchant: vault.merchant, actor: "instruction-budget")
        try await repeating(prepared, in: vault) { index in
            let schedule = try await vault.runtime.schedules.create(
                NewSchedule(
                    secureCardReference: card.reference, amount: 1_000, currency: "USD",
                    plan: PlanTerms(type: "delayedOnce", startDate: index < count ? Self.dueDay : Self.laterDay)),
                merchant: vault.merchant, actor: "instruction-budget", now: created)
            _ = try await vault.runtime.schedules.confirm(id: schedule.schedule.id, merchant: vault.merchant, actor: "instruction-budget", now: created)
        }
    }

    /// Charges every due step in one run, as `vault charge run` does; the extra work runs after
    /// each settled step.
    private func chargeDueSteps(in vault: BudgetVault) async throws {
        let runner = vault.runtime.chargeRunner(logger: BudgetVault.quiet)
        let options = vault.runtime.chargeRunOptions(asOf: Timestamp.parse(Self.dueDay + "T23:59:59Z")!)
        let extraWork = extraWork
        let summary = try await runner.run(options, actor: "instruction-budget") { _ in extraWork.run() }
        let approved = summary.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0
        guard summary.processed == count, approved == count else {
            throw BudgetFailure("the run charged \(summary.processed) steps, \(approved) approved; expected \(count) approved")
        }
    }

    /// `POST /v1/secure-cards` through the server's router, in-process (HummingbirdTesting's
    /// router mode: the request goes through every middleware and handler, without a socket).
    private func registerOverHTTP(in vault: BudgetVault) async throws {
        let app = Application(router: buildRouter(runtime: vault.runtime), logger: BudgetVault.quiet)
        let headers: HTTPFields = [.authorization: "Bearer \(vault.bearer)", .contentType: "application/json"]
        try await app.test(.router) { client in
            try await repeating(count, in: vault) { index in
                let body = """
                    {"merchantReference": "hc-\(index)", "method": "keyed", "verify": false,
                     "card": {"number": "\(Self.pan)", "expiryDate": "1230", "holderName": "Bench Mark"},
                     "customer": {"email": "budget@example.com", "country": "US"}}
                    """
                let status = try await client.execute(uri: "/v1/secure-cards", method: .post, headers: headers, body: ByteBuffer(string: body)) {
                    $0.status
                }
                guard status == .created else { throw BudgetFailure("POST /v1/secure-cards answered \(status.code), expected 201") }
                extraWork.run()
            }
        }
    }

    /// The registration body of `scripts/load-test.sh`, as its clients send it.
    static let registrationBody = Array(
        #"{"merchantReference": "seed-1", "method": "keyed", "verify": false, "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Seed Card"}}"#
            .utf8)

    /// Decodes ``registrationBody`` `count` times as `POST /v1/secure-cards` does.
    private func decodeBodies() throws {
        for _ in 0..<count {
            let request = try JSONCoding.decode(
                SecureCardRegistrationRequest.self, body: Self.registrationBody, method: "POST", path: "/v1/secure-cards")
            guard request.registration.merchantReference == "seed-1" else { throw BudgetFailure("the body decoded to another registration") }
            extraWork.run()
        }
    }
}
