import Foundation
import Payments
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler

/// End to end: the receipt piped to `msmtp` (a real sendmail-compatible client, Debian package
/// `msmtp`) reaches a local SMTP server (scripts/smtp_sink.py, aiosmtpd from PyPI) on loopback as
/// written. Without those tools the test fails, unless `VAULT_TEST_MAIL=optional`, when it says
/// so and passes (a developer machine without them).
@Suite struct MsmtpReceiptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let msmtp = "/usr/bin/msmtp"

    /// The tools that are missing, by name.
    static func missingTools() -> [String] {
        var missing: [String] = []
        if !FileManager.default.isExecutableFile(atPath: msmtp) { missing.append("msmtp") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import aiosmtpd"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        if (try? probe.run()) == nil { return missing + ["python3"] }
        probe.waitUntilExit()
        if probe.terminationStatus != 0 { missing.append("aiosmtpd") }
        return missing
    }

    /// Runs `body` on a thread of its own: starting Python and waiting for its line or its exit
    /// blocks, and a blocked thread of Swift's cooperative pool (two on two cores) stalls every
    /// other test's in-process server.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The sink started and the port it listens on, once it accepts connections.
    final class Sink: @unchecked Sendable {
        // Safe: the process and pipes are touched by one thread at a time (started, read, then
        // stopped, each awaited before the next).
        let process = Process()
        let control = Pipe()
        let announcement = Pipe()
        var port = 0
    }

    /// Whether the tools are there; when they are not, records an issue (or, with
    /// `VAULT_TEST_MAIL=optional`, says so) and answers false.
    static func toolsPresent() async throws -> Bool {
        let missing = try await offPool { missingTools() }
        if missing.isEmpty { return true }
        guard ProcessInfo.processInfo.environment["VAULT_TEST_MAIL"] == "optional" else {
            let advice = "run scripts/install-deps.sh and pip install aiosmtpd, or set VAULT_TEST_MAIL=optional"
            Issue.record("missing \(missing.joined(separator: ", ")): \(advice)")
            return false
        }
        print("msmtp receipt test: skipped (VAULT_TEST_MAIL=optional): missing \(missing.joined(separator: ", "))")
        return false
    }

    /// Runs `body` with a loopback SMTP sink started (its port, and the directory where it keeps
    /// `message-<n>.eml` and `envelope-<n>.txt`), and stops the sink afterwards.
    static func withSink(_ body: (_ port: Int, _ directory: URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let sink = Sink()
        let sinkArguments = ["python3", Self.root.appendingPathComponent("scripts/smtp_sink.py").path, directory.path]
        try await Self.offPool {
            sink.process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            sink.process.arguments = sinkArguments
            sink.process.standardInput = sink.control
            sink.process.standardOutput = sink.announcement
            try sink.process.run()
            // The sink prints its port once it accepts connections: reading the line is the wait.
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")), let byte = try sink.announcement.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
                line += byte
            }
            let announced = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            sink.port = announced.split(separator: " ").last.flatMap { Int($0) } ?? 0
        }
        func stopSink() async throws {
            try await Self.offPool {
                try? sink.control.fileHandleForWriting.close()
                sink.process.waitUntilExit()
            }
        }
        guard sink.port > 0 else {
            try await stopSink()
            Issue.record("the SMTP sink announced no port")
            return
        }
        do {
            try await body(sink.port, directory)
        } catch {
            try await stopSink()
            throw error
        }
        try await stopSink()
    }

    /// The msmtp command line that hands messages to the sink on `port`.
    static func msmtpCommand(port: Int) -> String {
        "\(Self.msmtp) --host=127.0.0.1 --port=\(port) --auth=off --tls=off --from=receipts@vault.example -t -i"
    }

    @Test func aReceiptPipedToMsmtpReachesTheSMTPServerAsWritten() async throws {
        guard try await Self.toolsPresent() else { return }
        try await Self.withSink { port, directory in
            let mail = try ReceiptMailTests.mail(merchantName: "Café Corner\r\nBcc: victim@example.net")
            let message = mail.message(of: try ReceiptMailTests.approved())
            let command = try SendmailCommand(Self.msmtpCommand(port: port))
            try command.checkRunnable()
            #expect(await command.send(message) == .accepted)

            let received = try String(contentsOf: directory.appendingPathComponent("message-0.eml"), encoding: .utf8)
            let envelope = try String(contentsOf: directory.appendingPathComponent("envelope-0.txt"), encoding: .utf8)
            #expect(envelope == "receipts@vault.example\nada@example.org\n")
            let normalized = received.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(normalized == message)
            #expect(!normalized.lowercased().contains("\nbcc:"))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("message-1.eml").path))
            if ProcessInfo.processInfo.environment["VAULT_TEST_MAIL_SHOW"] != nil { print(received) }
        }
    }

    @Test func anApprovedChargesReceiptQueuedByTheVaultReachesTheSMTPServerThroughTheDeliverer() async throws {
        guard try await Self.toolsPresent() else { return }
        try await Self.withSink { port, directory in
            let setup = EmailReceiptSetup(sendmailCommand: Self.msmtpCommand(port: port), from: "receipts@vault.example")
            let fixture = try await ChargingFixture(emailReceipts: setup)
            let merchant = try await fixture.merchant("cafe.corner", zone: "Europe/Paris")
            // The world's own fake program is not used: the deliverer below pipes to msmtp.
            let world = EmailReceiptDeliveryTests.World(fixture: fixture, sendmail: try FakeSendmail(), merchant: merchant)
            defer { world.sendmail.remove() }
            let transaction = try #require(try await world.charge().first)
            #expect(transaction.status == .approved)
            let deliverer = ReceiptDeliverer(store: world.fixture.store, keyring: world.fixture.keyring, mailer: try setup.mailer(), logger: world.logs.logger)
            #expect(try await deliverer.deliverDue(now: Date().addingTimeInterval(1)) == ReceiptDeliveryReport(sent: 1))

            let received = try String(contentsOf: directory.appendingPathComponent("message-0.eml"), encoding: .utf8)
            let envelope = try String(contentsOf: directory.appendingPathComponent("envelope-0.txt"), encoding: .utf8)
            #expect(envelope == "receipts@vault.example\n\(EmailReceiptDeliveryTests.address)\n")
            let expected = ReceiptMail(
                from: MailAddress("receipts@vault.example")!, to: MailAddress(EmailReceiptDeliveryTests.address)!, merchantName: "cafe.corner",
                timeZone: TimeZone(identifier: "Europe/Paris")!
            ).message(of: transaction)
            #expect(received.replacingOccurrences(of: "\r\n", with: "\n") == expected)
            #expect(!received.contains("4242424242424242"))
            #expect(try await world.fixture.store.receipts(merchantID: merchant.id, status: .sent, beforeSequence: nil, limit: 10).count == 1)
        }
    }
}
