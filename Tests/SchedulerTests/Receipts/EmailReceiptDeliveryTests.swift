import Foundation
import Payments
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// E-mail receipts end to end on the run's engine: an approved scheduled charge whose schedule has
/// a `receiptEmail` queues its receipt in the outcome's own write (the address sealed), and the
/// deliverer pipes it to the mail program (a fake that keeps each message) once, retries a refusal
/// after its backoff, gives up after the attempts allowed, and sends a receipt whose deliverer
/// died after claiming it once the lease ends.
@Suite struct EmailReceiptDeliveryTests {
    static let address = "ada.lovelace@example.org"
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!

    struct World {
        let fixture: ChargingFixture
        let sendmail: FakeSendmail
        let merchant: Merchant
        let logs = WebhookLogs()

        var setup: EmailReceiptSetup { EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example") }

        func deliverer(store: (any ReceiptStore)? = nil, maxAttempts: Int = 8) throws -> ReceiptDeliverer {
            ReceiptDeliverer(
                store: store ?? fixture.store, keyring: fixture.keyring, mailer: try setup.mailer(),
                settings: ReceiptDeliverySettings(maxAttempts: maxAttempts, initialBackoff: 60, maxBackoff: 3600, lease: 300), logger: logs.logger)
        }

        func receipts(_ status: ReceiptStatus? = nil) async throws -> [EmailReceipt] {
            try await fixture.store.receipts(merchantID: merchant.id, status: status, beforeSequence: nil, limit: 100)
        }

        /// The approved (or declined) charges of `schedules` schedules on a card numbered `pan`,
        /// each schedule with `email` as its receipt address; the transactions.
        func charge(schedules: Int = 1, pan: String = "4242424242424242", email: String? = EmailReceiptDeliveryTests.address) async throws -> [Transaction] {
            let card = try await fixture.card("reader-\(UUID().uuidString.prefix(8))", pan: pan, merchant: merchant, now: EmailReceiptDeliveryTests.registered)
            var ids: [String] = []
            for _ in 0..<schedules {
                let created = try await fixture.schedules.create(
                    NewSchedule(
                        secureCardReference: card.reference, amount: 1999, currency: "USD", receiptEmail: email,
                        plan: PlanTerms(type: "delayedOnce", startDate: "2027-01-02")),
                    merchant: merchant, actor: "test", now: EmailReceiptDeliveryTests.registered)
                ids.append(try await fixture.schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: EmailReceiptDeliveryTests.registered).schedule.id)
            }
            var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-01-02"))
            options.retryBackoff = .milliseconds(1)
            _ = try await fixture.runner().run(options)
            var transactions: [Transaction] = []
            for id in ids {
                transactions += try await fixture.store.transactions(
                    merchantID: merchant.id, filter: TransactionFilter(scheduleID: id), beforeSequence: nil, limit: 5)
            }
            return transactions
        }
    }

    static func world() async throws -> World {
        let sendmail = try FakeSendmail()
        let fixture = try await ChargingFixture(emailReceipts: EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example"))
        return World(fixture: fixture, sendmail: sendmail, merchant: try await fixture.merchant("corner-books", zone: "America/New_York"))
    }

    @Test func anApprovedChargeQueuesItsReceiptSealedAndItIsSentOnceAsTheReceiptMessage() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        let transaction = try #require(try await world.charge().first)
        #expect(transaction.status == .approved)
        let queued = try #require(try await world.receipts(.pending).first)
        #expect(queued.transactionID == transaction.id && queued.event == .paid && queued.maskedRecipient == "a***@example.org")
        let stored = try await world.fixture.database.sql.query("SELECT * FROM email_receipts")
        #expect(stored.count == 1)
        #expect(try !stored[0].string("recipient").contains("lovelace"))

        let now = Date().addingTimeInterval(1)
        #expect(try await world.deliverer().deliverDue(now: now) == ReceiptDeliveryReport(sent: 1))
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(86_400)) == ReceiptDeliveryReport())
        let messages = try world.sendmail.messages()
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        let zone = TimeZone(identifier: "America/New_York")!
        let mail = ReceiptMail(from: MailAddress("receipts@vault.example")!, to: MailAddress(Self.address)!, merchantName: "corner-books", timeZone: zone)
        #expect(message == mail.message(of: transaction))
        #expect(message.contains("\nTo: \(Self.address)\n") && message.contains("From: corner-books <receipts@vault.example>"))
        #expect(message.contains("Paid: $19.99") && message.contains("Card: visa 424242******4242"))
        #expect(message.contains("Date: " + ReceiptText.localTime(transaction.updatedAt, zone: zone) + " America/New_York"))
        #expect(message.contains("Transaction: \(transaction.id)") && message.contains("Message-ID: <receipt.\(transaction.id)@vault.example>"))
        #expect(!message.contains("4242424242424242"))
        let sent = try #require(try await world.receipts(.sent).first)
        #expect(sent.attempts == 0 && sent.sentAt != nil && sent.lastError == nil)
        #expect(!world.logs.text.contains("lovelace"))
    }

    @Test(arguments: [("4000000000000002", address), ("4242424242424242", nil)] as [(String, String?)])
    func noReceiptForADeclineOrWithoutAnAddress(pan: String, email: String?) async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge(pan: pan, email: email)
        #expect(try await world.receipts().isEmpty)
        #expect(try await world.deliverer().deliverDue(now: Date().addingTimeInterval(1)) == ReceiptDeliveryReport())
        #expect(try world.sendmail.messages().isEmpty)
    }

    @Test func twoDeliverersRacingOnTwoStoresSendEachReceiptOnce() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        let transactions = try await world.charge(schedules: 6)
        #expect(transactions.count == 6 && transactions.allSatisfy { $0.status == .approved })
        let second = try await world.fixture.database.openAnother()
        defer { TestDatabase.close(second) }
        let now = Date().addingTimeInterval(1)
        let first = try world.deliverer()
        let other = try world.deliverer(store: second)
        async let a = first.deliverDue(now: now)
        async let b = other.deliverDue(now: now)
        let reports = try await [a, b]
        #expect(reports.map(\.sent).reduce(0, +) == 6)
        let messages = try world.sendmail.messages()
        #expect(messages.count == 6)
        let ids = Set(messages.compactMap { $0.split(separator: "\n").first { $0.hasPrefix("Message-ID: ") } })
        #expect(ids == Set(transactions.map { "Message-ID: <receipt.\($0.id)@vault.example>" }))
        #expect(try await world.receipts(.sent).count == 6)
    }

    @Test func aRefusedReceiptIsRetriedAfterItsBackoffAndThenSent() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        try world.sendmail.refuse(status: 75)
        let now = Date().addingTimeInterval(1)
        #expect(try await world.deliverer().deliverDue(now: now) == ReceiptDeliveryReport(retrying: 1))
        let refused = try #require(try await world.receipts(.pending).first)
        #expect(refused.attempts == 1 && refused.lastError == "\(world.sendmail.program) exited with status 75")
        try world.sendmail.accept()
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(59)) == ReceiptDeliveryReport())
        #expect(try world.sendmail.messages().isEmpty)
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(60)) == ReceiptDeliveryReport(sent: 1))
        #expect(try world.sendmail.messages().count == 1)
        let sent = try #require(try await world.receipts(.sent).first)
        #expect(sent.attempts == 1)
    }

    @Test func aReceiptRefusedOnEveryAttemptAllowedFailsWithTheLastErrorAndNoAddressLogged() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        try world.sendmail.refuse(status: 1)
        var now = Date().addingTimeInterval(1)
        let deliverer = try world.deliverer(maxAttempts: 3)
        #expect(try await deliverer.deliverDue(now: now) == ReceiptDeliveryReport(retrying: 1))
        now.addTimeInterval(60)
        #expect(try await deliverer.deliverDue(now: now) == ReceiptDeliveryReport(retrying: 1))
        now.addTimeInterval(120)
        #expect(try await deliverer.deliverDue(now: now) == ReceiptDeliveryReport(failed: 1))
        let failed = try #require(try await world.receipts(.failed).first)
        #expect(failed.attempts == 3 && failed.lastError == "\(world.sendmail.program) exited with status 1" && failed.sentAt == nil)
        try world.sendmail.accept()
        #expect(try await deliverer.deliverDue(now: now.addingTimeInterval(86_400)) == ReceiptDeliveryReport())
        #expect(try world.sendmail.messages().isEmpty)
        #expect(world.logs.text.contains("receipt failed for good"))
        #expect(!world.logs.text.contains("lovelace") && !world.logs.text.contains("example.org"))
    }

    @Test func aReceiptWhoseDelivererDiedAfterClaimingItIsSentOnceItsLeaseEnds() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        let now = Date().addingTimeInterval(1)
        // A deliverer claims it and dies before piping it.
        #expect(try await world.fixture.store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(300), limit: 10).count == 1)
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(299)) == ReceiptDeliveryReport())
        #expect(try world.sendmail.messages().isEmpty)
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(300)) == ReceiptDeliveryReport(sent: 1))
        #expect(try await world.deliverer().deliverDue(now: now.addingTimeInterval(900)) == ReceiptDeliveryReport())
        #expect(try world.sendmail.messages().count == 1)
    }

    /// Edits someone with write access to the database but no key might make to a queued receipt.
    static let alterations: [(String, SQLiteQuery)] = [
        ("amount", "UPDATE email_receipts SET body = replace(body, '19.99', '1999.00')"),
        ("merchant", "UPDATE email_receipts SET merchant_name = 'Another Shop'"),
        ("transaction", "UPDATE email_receipts SET transaction_id = 'txn_another'"),
        ("event", "UPDATE email_receipts SET event = 'refunded'"),
        ("binding removed", "UPDATE email_receipts SET binding = NULL"),
    ]

    @Test(arguments: alterations.map(\.0))
    func aReceiptAlteredInTheDatabaseIsNotSentIsMarkedFailedAndIsReportedByTheCheck(alteration: String) async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        let queued = try #require(try await world.receipts(.pending).first)
        let intact = try await BoundRowCheck(store: world.fixture.store, keyring: world.fixture.keyring).run()
        #expect(intact.isIntact && intact.checked["email_receipts"] == 1)
        let edit = try #require(Self.alterations.first { $0.0 == alteration }?.1)
        try await world.fixture.database.sql.run(edit)

        let report = try await world.deliverer().deliverDue(now: Date().addingTimeInterval(1))
        #expect(report == ReceiptDeliveryReport(failed: 1, altered: 1))
        #expect(try world.sendmail.messages().isEmpty, "the altered receipt is never piped")
        let failed = try #require(try await world.receipts(.failed).first)
        #expect(failed.id == queued.id && failed.lastError == ReceiptDeliverer.integrityFailedReason && failed.sentAt == nil)
        #expect(try await world.deliverer().deliverDue(now: Date().addingTimeInterval(86_400)) == ReceiptDeliveryReport())
        let check = try await BoundRowCheck(store: world.fixture.store, keyring: world.fixture.keyring).run()
        #expect(!check.isIntact && check.tampered["email_receipts"] == [queued.id])
    }

    @Test func aRecipientSwappedForAnotherReceiptsIsNotSent() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        _ = try await world.charge(email: "grace@example.org")
        let queued = try await world.receipts(.pending)
        #expect(queued.count == 2)
        // Each sealed recipient opens on its own, so only the binding tells that it was moved.
        try await world.fixture.database.sql.run(
            "UPDATE email_receipts SET recipient = \(queued[1].recipient) WHERE id = \(queued[0].id)")
        let report = try await world.deliverer().deliverDue(now: Date().addingTimeInterval(1))
        #expect(report == ReceiptDeliveryReport(sent: 1, failed: 1, altered: 1))
        #expect(try world.sendmail.messages().count == 1)
    }

    @Test func sentAndFailedReceiptsArePurgedAfterTheRetentionPeriodAndPendingOnesAreKept() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        _ = try await world.charge()
        #expect(try await world.deliverer().deliverDue(now: Date().addingTimeInterval(1)) == ReceiptDeliveryReport(sent: 1))
        _ = try await world.charge(email: "grace@example.org")
        try world.sendmail.refuse(status: 75)
        let deliverer = ReceiptDeliverer(
            store: world.fixture.store, keyring: world.fixture.keyring, mailer: try world.setup.mailer(),
            settings: ReceiptDeliverySettings(retention: 30 * 86_400), logger: world.logs.logger)
        #expect(try await deliverer.deliverDue(now: Date().addingTimeInterval(29 * 86_400)) == ReceiptDeliveryReport(retrying: 1))
        #expect(try await world.receipts().count == 2, "nothing is purged inside the retention period")
        let later = try await deliverer.deliverDue(now: Date().addingTimeInterval(31 * 86_400))
        #expect(later == ReceiptDeliveryReport(retrying: 1, purged: 1))
        let kept = try await world.receipts()
        #expect(kept.count == 1 && kept.first?.status == .pending, "a receipt still to be sent is kept whatever its age")
    }
}
