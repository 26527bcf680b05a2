import Foundation
import Payments
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// A schedule asking for e-mail receipts is taken only while the vault can send them: with no mail
/// program configured, a program that is not an executable file, or no sender, a `receiptEmail`
/// is refused (``ReceiptsNotConfigured``, naming the field) and nothing is stored or changed; the
/// same request without it, or with a usable program, is taken.
@Suite struct ScheduleReceiptEmailTests {
    static let now = Timestamp.parse("2027-01-01T00:00:00Z")!

    static func request(_ card: SecureCard, email: String?) -> NewSchedule {
        NewSchedule(
            secureCardReference: card.reference, amount: 1999, currency: "USD", receiptEmail: email,
            plan: PlanTerms(type: "delayedOnce", startDate: "2027-01-02"))
    }

    static let unusable: [EmailReceiptSetup] = [
        .notConfigured,
        EmailReceiptSetup(sendmailCommand: "", from: "receipts@vault.example"),
        EmailReceiptSetup(sendmailCommand: "/nonexistent/sendmail -t -i", from: "receipts@vault.example"),
        EmailReceiptSetup(sendmailCommand: "sendmail -t -i", from: "receipts@vault.example"),
        EmailReceiptSetup(sendmailCommand: "/dev/null -t -i", from: "receipts@vault.example"),
        EmailReceiptSetup(sendmailCommand: "/bin/true", from: nil),
    ]

    @Test(arguments: unusable.indices)
    func aReceiptEmailIsRefusedWhileNoUsableMailProgramIsConfiguredAndNothingIsStored(index: Int) async throws {
        let setup = Self.unusable[index]
        let fixture = try await ChargingFixture(emailReceipts: setup)
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.now)
        await #expect(throws: ReceiptsNotConfigured.self) {
            try await fixture.schedules.create(Self.request(card, email: "ada@example.org"), merchant: merchant, actor: "test", now: Self.now)
        }
        do {
            _ = try await fixture.schedules.preview(Self.request(card, email: "ada@example.org"), merchant: merchant, now: Self.now)
            Issue.record("a preview asking for e-mail receipts was taken")
        } catch let error as ReceiptsNotConfigured {
            #expect(error.field == "receiptEmail")
            #expect(!error.description.contains("ada@example.org"))
        }
        #expect(try await fixture.schedules.list(merchant: merchant, status: nil, afterSequence: nil, limit: 10, now: Self.now).isEmpty)
        // The same request without an address is taken.
        let created = try await fixture.schedules.create(Self.request(card, email: nil), merchant: merchant, actor: "test", now: Self.now)
        // Setting an address later is refused too, and the schedule keeps none.
        await #expect(throws: ReceiptsNotConfigured.self) {
            try await fixture.schedules.change(
                id: created.schedule.id, ScheduleChange(receiptEmail: .set("ada@example.org")), merchant: merchant, actor: "test", now: Self.now)
        }
        #expect(try await fixture.schedules.get(id: created.schedule.id, merchant: merchant, now: Self.now).schedule.receiptEmail == nil)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedule.changed'") == 0)
    }

    @Test func aReceiptEmailIsTakenWithAUsableMailProgramAndSender() async throws {
        let sendmail = try FakeSendmail()
        defer { sendmail.remove() }
        let fixture = try await ChargingFixture(emailReceipts: EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example"))
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.now)
        let created = try await fixture.schedules.create(Self.request(card, email: "ada@example.org"), merchant: merchant, actor: "test", now: Self.now)
        #expect(created.schedule.receiptEmail == "ada@example.org")
        // An address a message header cannot carry is refused as invalid, whatever the program.
        await #expect(throws: ScheduleError.self) {
            try await fixture.schedules.create(Self.request(card, email: "ada\"x\"@example.org"), merchant: merchant, actor: "test", now: Self.now)
        }
    }
}
