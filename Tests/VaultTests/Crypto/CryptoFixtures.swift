import Foundation
@testable import Vault

/// Shared inputs for the crypto suites: fixed keys, hex parsing done
/// independently of the code under test, and scratch directories.
enum CryptoFixtures {
    /// Bytes from hex, parsed here rather than with `Encoding.fromHex`, so
    /// vectors do not depend on the encoder being tested.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        precondition(digits.count.isMultiple(of: 2), "odd hex length")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)!
        }
    }

    /// A key whose bytes are `first, first + 1, ...`.
    static func key(_ count: Int = 32, startingAt first: UInt8 = 0) throws -> SecureBytes {
        try SecureBytes(copying: (0..<count).map { first &+ UInt8($0) })
    }

    /// A test card number (Visa test PAN); never printed by any test.
    static let testPAN = Array("4111111111111111".utf8)

    /// Runs `body` with a fresh empty directory that is removed afterwards.
    static func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("vault-crypto-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    /// The permission bits of the file at `path`.
    static func permissions(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as! NSNumber).intValue
    }

    /// Sets the permission bits of the file at `path`.
    static func setPermissions(_ mode: Int, of path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
    }

    /// Writes `text` to `path` with the given permissions.
    static func writeFile(_ text: String, to path: String, permissions mode: Int = 0o600) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try setPermissions(mode, of: path)
    }

    /// The bytes of the file at `path`.
    static func contents(of path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        return Array(data)
    }

    /// The names of the entries of `directory`, sorted.
    static func names(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }
}
