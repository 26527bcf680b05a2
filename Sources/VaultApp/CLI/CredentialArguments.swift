import ArgumentParser
import Foundation

/// `--gateway-credential KEY=VALUE` arguments, whose values may come from a file (`KEY=@PATH`) or
/// from standard input (`KEY=-`), so a secret need not be written on the command line (where `ps`
/// and the shell's history show it).
enum CredentialArguments {
    /// The credentials the arguments give, by key.
    /// - Parameter readStandardInput: reads standard input to its end (replaced in tests).
    /// - Throws: `ValidationError` naming the key (never a value): a malformed pair, an unreadable or
    ///   empty file, standard input asked for twice or empty.
    static func parse(_ pairs: [String], readStandardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws
        -> [String: String]
    {
        var parsed: [String: String] = [:]
        var readInput = false
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--gateway-credential takes KEY=VALUE, KEY=@PATH or KEY=-")
            }
            let key = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            if value == "-" {
                guard !readInput else { throw ValidationError("--gateway-credential: only one value can come from standard input (\(key))") }
                readInput = true
                parsed[key] = try secret(readStandardInput(), key: key, source: "standard input")
            } else if value.hasPrefix("@") {
                let path = String(value.dropFirst())
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ValidationError("--gateway-credential \(key): cannot read \(path)")
                }
                parsed[key] = try secret(data, key: key, source: path)
            } else {
                parsed[key] = value
            }
        }
        return parsed
    }

    /// The first line of `data` (a trailing newline, as `echo` and editors write, is not part of it).
    private static func secret(_ data: Data, key: String, source: String) throws -> String {
        let text = String(decoding: data, as: UTF8.self)
        let line = text.components(separatedBy: .newlines).first ?? ""
        guard !line.isEmpty else { throw ValidationError("--gateway-credential \(key): \(source) gave an empty value") }
        return line
    }
}
