public import ArgumentParser
import Foundation
import VaultAPI

/// Ends the process with `code` (the C library exit; the name clashes with ParsableCommand.exit).
private func terminate(_ code: Int32) -> Never {
    fflush(nil)
    Foundation.exit(code)
}

/// `vault`: the one executable.
public struct VaultCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Secure-card token vault with recurring billing.",
        discussion: "Exit codes: 0 ok, 1 failure, 2 usage; `vault charge run` adds 3 (some steps unsettled: run again later) and 4 (some steps need an operator); `vault migrate --status` 3 (migrations pending) and 4 (the database is newer than this build).",
        version: VaultVersion.current,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, BackupCommand.self, RestoreCommand.self, StatusCommand.self, KeysCommand.self,
            MerchantCommand.self, OperatorCommand.self, AuditCommand.self, ChargeCommand.self, WebhooksCommand.self,
        ]
    )

    public init() {}

    /// Parses the process arguments and runs the command, mapping outcomes to exit codes 0, 1 and 2.
    public static func runAndExit(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                terminate(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            terminate(2)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
            terminate(0)
        } catch let error as ExitCode {
            terminate(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                terminate(0)
            }
            if code == .validationFailure || error is ValidationError {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                terminate(2)
            }
            FileHandle.standardError.write(Data("error: \(String(describing: error))\n".utf8))
            terminate(1)
        }
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration file (default: $VAULT_CONFIG, else config/vault.yaml if it exists, else built-in defaults).")
    var config: String?

    func loadConfiguration() throws -> VaultConfiguration {
        try VaultConfiguration.load(path: config)
    }
}
