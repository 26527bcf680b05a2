import Foundation
import StorageTestSupport
import Testing
@testable import Scheduler

/// The sendmail-compatible program: split without a shell, run with the message on its input,
/// its exit status taken as the answer. A fake program written into a temporary directory keeps
/// each message it reads in a file.
@Suite struct SendmailCommandTests {
    /// A directory with `sendmail` (keeps its arguments and input in `mail-<n>` files and exits
    /// `status`) and `outbox`.
    static func fake(exitStatus: Int = 0) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sendmail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("outbox"), withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            n=$(ls "\(directory.path)/outbox" | wc -l)
            printf '%s\\n' "$@" > "\(directory.path)/outbox/args-$n"
            cat > "\(directory.path)/outbox/mail-$n"
            exit \(exitStatus)

            """
        try ExecutableFile.write(script, to: directory.appendingPathComponent("sendmail").path)
        return directory
    }

    static func kept(_ directory: URL) throws -> [String] {
        let outbox = directory.appendingPathComponent("outbox")
        return try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasPrefix("mail-") }.sorted()
            .map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
    }

    @Test func theMessageReachesTheProgramsInputWithTheConfiguredArguments() async throws {
        let directory = try Self.fake()
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try SendmailCommand(directory.appendingPathComponent("sendmail").path + "  -t\t-i")
        #expect(command.arguments == ["-t", "-i"])
        try command.checkRunnable()
        let message = try ReceiptMailTests.mail().message(of: try ReceiptMailTests.approved())
        #expect(await command.send(message) == .accepted)
        #expect(try Self.kept(directory) == [message])
        let arguments = try String(contentsOf: directory.appendingPathComponent("outbox/args-0"), encoding: .utf8)
        #expect(arguments == "-t\n-i\n")
    }

    @Test func aNonZeroExitIsARefusalToTryAgain() async throws {
        let directory = try Self.fake(exitStatus: 75)
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try SendmailCommand(directory.appendingPathComponent("sendmail").path + " -t -i")
        guard case .refused(let reason) = await command.send("To: ada@example.org\n\nhello\n") else {
            Issue.record("a failing program was taken as accepting")
            return
        }
        #expect(reason.hasSuffix("exited with status 75"))
    }

    @Test func theLineIsNeverReadByAShell() async throws {
        let directory = try Self.fake()
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try SendmailCommand(directory.appendingPathComponent("sendmail").path + " -t;touch$IFS/tmp/x `id` $(id)")
        #expect(command.arguments == ["-t;touch$IFS/tmp/x", "`id`", "$(id)"])
        #expect(await command.send("To: ada@example.org\n\nhello\n") == .accepted)
        let arguments = try String(contentsOf: directory.appendingPathComponent("outbox/args-0"), encoding: .utf8)
        #expect(arguments == "-t;touch$IFS/tmp/x\n`id`\n$(id)\n")
    }

    @Test func aMissingRelativeOrEmptyProgramIsRefusedBeforeAnythingIsSent() async throws {
        #expect(throws: SendmailCommand.Problem.empty) { try SendmailCommand("  ") }
        #expect(throws: SendmailCommand.Problem.notAbsolute("sendmail")) { try SendmailCommand("sendmail -t -i") }
        let missing = try SendmailCommand("/nonexistent/sendmail -t -i")
        #expect(throws: SendmailCommand.Problem.notExecutable("/nonexistent/sendmail")) { try missing.checkRunnable() }
        #expect(await missing.send("To: ada@example.org\n\nhello\n") == .refused("could not start /nonexistent/sendmail"))
    }

    @Test func aProgramThatExitsWithoutReadingDoesNotEndTheVault() async throws {
        let command = try SendmailCommand("/bin/false")
        #expect(await command.send(String(repeating: "x", count: 200_000)) == .refused("/bin/false exited with status 1"))
    }
}
