public import ArgumentParser
import Foundation
public import Vault

/// `vault operator create|list|disable|reset`: the people who sign in to the console.
struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator", abstract: "Console operators: individual accounts with a password and an authenticator app.",
        subcommands: [Create.self, List.self, Disable.self, Reset.self])

    /// One operator as `list --json` prints it.
    struct Summary: Encodable {
        var id: String
        var name: String
        var role: String
        /// Merchant ids, or nil for every merchant.
        var merchants: [String]?
        var status: String
        var lockedUntil: String?
        var createdAt: String

        init(_ account: Operator) {
            id = account.id
            name = account.name
            role = account.role.rawValue
            merchants = account.merchantIDs
            status = account.status.rawValue
            lockedUntil = account.isLocked(at: Date()) ? account.lockedUntil.map(Timestamp.string) : nil
            createdAt = Timestamp.string(account.createdAt)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(role, forKey: .role)
            try container.encode(merchants, forKey: .merchants)
            try container.encode(status, forKey: .status)
            try container.encode(lockedUntil, forKey: .lockedUntil)
            try container.encode(createdAt, forKey: .createdAt)
        }

        enum CodingKeys: String, CodingKey { case id, name, role, merchants, status, lockedUntil, createdAt }
    }

    /// What `create` and `reset` print with `--json`.
    struct Enrolled: Encodable {
        var `operator`: String
        var totpSecret: String
        var otpauthURI: String
    }

    /// The password, from standard input only (never an argument: it would show in `ps` and in
    /// shell history): its first line, without the line end.
    struct PasswordOptions: ParsableArguments {
        @Flag(help: "Read the password from standard input (required; at least 12 characters, not a common one).")
        var passwordStdin = false

        func password(readStandardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws -> String {
            guard passwordStdin else { throw ValidationError("give the password on standard input with --password-stdin") }
            let text = String(decoding: readStandardInput(), as: UTF8.self)
            let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
            guard !password.isEmpty else { throw ValidationError("standard input held no password") }
            return password
        }
    }

    static func printEnrollment(_ account: Operator, _ enrollment: OperatorService.Enrollment, json: Bool, verb: String) {
        if json {
            printJSON(Enrolled(operator: account.name, totpSecret: enrollment.secret, otpauthURI: enrollment.uri))
            return
        }
        let scope = account.merchantIDs.map { "merchants \($0.joined(separator: ", "))" } ?? "every merchant"
        print("\(verb) operator \(account.name) (\(account.id)), role \(account.role.rawValue), \(scope)")
        print("authenticator secret (shown once; enrol it now): \(enrollment.secret)")
        print("otpauth URI: \(enrollment.uri)")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an operator; its authenticator secret is printed once.",
            discussion: """
                Roles: readonly sees cards, schedules, transactions and the audit trail; support also updates cards and \
                schedules, resolves reviews, refunds and voids; admin also manages custom fields, API keys, webhooks and operators.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Operator name: 1-64 letters, digits, '.', '_' or '-'.")
        var name: String

        @Option(help: "Role: admin, support or readonly.")
        var role: OperatorRole

        @Option(help: "A merchant the operator may see, repeatable; none: every merchant.")
        var merchant: [String] = []

        @OptionGroup var password: PasswordOptions

        @Flag(help: "Print one JSON object {\"operator\", \"totpSecret\", \"otpauthURI\"}.")
        var json = false

        func run() async throws {
            let secret = try password.password()
            try await withRuntime(global) { runtime in
                let (account, enrollment) = try await runtime.operators.create(
                    name: name, role: role, merchantNames: merchant, password: secret, actor: "cli")
                OperatorCommand.printEnrollment(account, enrollment, json: json, verb: "created")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List operators.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            try await withRuntime(global) { runtime in
                let accounts = try await runtime.operators.list()
                if json {
                    printJSON(accounts.map(Summary.init))
                    return
                }
                for account in accounts {
                    let summary = Summary(account)
                    let locked = summary.lockedUntil.map { "\tlocked until \($0)" } ?? ""
                    print("\(account.name)\t\(account.id)\t\(account.role.rawValue)\t\(account.status.rawValue)\t\(account.merchantIDs?.joined(separator: ",") ?? "all")\(locked)")
                }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an operator and end its console sessions.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Operator name.")
        var name: String

        func run() async throws {
            try await withRuntime(global) { runtime in
                if try await runtime.operators.disable(name: name, actor: "cli") {
                    print("disabled operator \(name); its sessions are ended")
                } else {
                    print("operator \(name) was already disabled; nothing changed")
                }
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an operator a new password and a new authenticator secret (printed once); re-enables and unlocks it.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Operator name.")
        var name: String

        @OptionGroup var password: PasswordOptions

        @Flag(help: "Print one JSON object {\"operator\", \"totpSecret\", \"otpauthURI\"}.")
        var json = false

        func run() async throws {
            let secret = try password.password()
            try await withRuntime(global) { runtime in
                let (account, enrollment) = try await runtime.operators.reset(name: name, password: secret, actor: "cli")
                OperatorCommand.printEnrollment(account, enrollment, json: json, verb: "reset")
            }
        }
    }
}

extension OperatorRole: ExpressibleByArgument {}
