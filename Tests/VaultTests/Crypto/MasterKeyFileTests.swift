import Foundation
import Testing
@testable import Vault

@Suite struct MasterKeyFileTests {
    @Test func createWritesOneVersionWithModeSixHundred() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/" + MasterKeyFile.defaultFileName
            #expect(try MasterKeyFile.createIfAbsent(path: path))
            #expect(try CryptoFixtures.permissions(of: path) == 0o600)
            let ring = try MasterKeyFile.load(path: path)
            #expect(ring.versions == [1])
            #expect(ring.current.count == 32)
        }
    }

    @Test func secondCreateReturnsFalseAndLeavesTheFileUnchanged() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try MasterKeyFile.createIfAbsent(path: path)
            let before = try CryptoFixtures.contents(of: path)
            #expect(try MasterKeyFile.createIfAbsent(path: path) == false)
            #expect(try CryptoFixtures.contents(of: path) == before)
            #expect(try CryptoFixtures.names(in: directory) == ["master.key"])
        }
    }

    @Test func createInAMissingDirectoryThrowsAnIOError() {
        #expect(throws: MasterKeyFile.IOError.self) {
            try MasterKeyFile.createIfAbsent(path: "/nonexistent-vault-dir/master.key")
        }
    }

    @Test(arguments: [0o640, 0o644, 0o604, 0o660, 0o700 | 0o007])
    func loadRefusesKeysAccessibleToGroupOrOthers(mode: Int) throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try MasterKeyFile.createIfAbsent(path: path)
            try CryptoFixtures.setPermissions(mode, of: path)
            do {
                _ = try MasterKeyFile.load(path: path)
                Issue.record("expected insecure permissions to be refused")
            } catch let error as MasterKeyFile.LoadError {
                #expect(error == .insecurePermissions(path: path, mode: UInt16(mode)))
                #expect(error.description.contains(path))
                #expect(error.description.contains("0" + String(mode, radix: 8)))
            }
        }
    }

    @Test(arguments: [0o600, 0o400])
    func loadAcceptsOwnerOnlyModes(mode: Int) throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try MasterKeyFile.createIfAbsent(path: path)
            try CryptoFixtures.setPermissions(mode, of: path)
            #expect(try MasterKeyFile.load(path: path).versions == [1])
        }
    }

    @Test func loadOfAMissingFileSaysMissing() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            #expect(throws: MasterKeyFile.LoadError.missing(path: path)) { try MasterKeyFile.load(path: path) }
        }
    }

    @Test func writeThenLoadRoundTripsEveryVersion() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            let ring = try MasterKeyRing(keys: [2: CryptoFixtures.key(startingAt: 2), 5: CryptoFixtures.key(startingAt: 5)])
                .addingNewVersion()
            try MasterKeyFile.write(ring, to: path)
            #expect(try CryptoFixtures.permissions(of: path) == 0o600)
            let loaded = try MasterKeyFile.load(path: path)
            #expect(loaded.versions == [2, 5, 6])
            for version in ring.versions {
                #expect(loaded.key(version: version)!.constantTimeEquals(ring.key(version: version)!))
            }
            #expect(try CryptoFixtures.names(in: directory) == ["master.key"])
        }
    }

    @Test func writeReplacesAnExistingFile() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try MasterKeyFile.createIfAbsent(path: path)
            let rotated = try MasterKeyFile.load(path: path).addingNewVersion()
            try MasterKeyFile.write(rotated, to: path)
            #expect(try MasterKeyFile.load(path: path).versions == [1, 2])
        }
    }

    @Test func loadAcceptsCommentsBlankLinesAndCRLF() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            let one = Encoding.base64(try CryptoFixtures.key(startingAt: 1))
            let two = Encoding.base64(try CryptoFixtures.key(startingAt: 2))
            try CryptoFixtures.writeFile("# keys\r\n\r\n  2\t\(two)  \r\n# old\n1 \(one)", to: path)
            let ring = try MasterKeyFile.load(path: path)
            #expect(ring.versions == [1, 2])
            #expect(ring.current.constantTimeEquals(try CryptoFixtures.key(startingAt: 2)))
        }
    }

    @Test(arguments: [
        ("1 AAAA\n", 1, "key is 3 bytes, expected 32"),
        ("# c\nkey\n", 2, "expected \"<version> <base64 key>\""),
        ("0 KEY\n", 1, "version must be a whole number from 1"),
        ("x KEY\n", 1, "version must be a whole number from 1"),
        ("1 not*base64\n", 1, "key is not valid base64"),
        ("1 KEY extra\n", 1, "unexpected text after the key"),
        ("1 KEY\n1 KEY\n", 2, "version 1 appears twice"),
    ])
    func loadNamesTheMalformedLine(template: String, line: Int, reason: String) throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            let key = Encoding.base64(try CryptoFixtures.key())
            try CryptoFixtures.writeFile(template.replacingOccurrences(of: "KEY", with: key), to: path)
            do {
                _ = try MasterKeyFile.load(path: path)
                Issue.record("expected a malformed-line error")
            } catch let error as MasterKeyFile.LoadError {
                #expect(error == .malformed(path: path, line: line, reason: reason))
                #expect(error.description.contains(path))
                #expect(!error.description.contains(key.prefix(8)))
            }
        }
    }

    @Test(arguments: ["", "# only a comment\n\n"])
    func loadOfAFileWithoutKeysSaysEmpty(text: String) throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try CryptoFixtures.writeFile(text, to: path)
            #expect(throws: MasterKeyFile.LoadError.empty(path: path)) { try MasterKeyFile.load(path: path) }
        }
    }

    @Test func loadRefusesADirectory() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            try CryptoFixtures.setPermissions(0o700, of: directory)
            #expect(throws: MasterKeyFile.LoadError.malformed(path: directory, line: 0, reason: "not a regular file")) {
                try MasterKeyFile.load(path: directory)
            }
        }
    }

    @Test func writtenFileHasTheDocumentedFormat() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            let ring = try MasterKeyRing(keys: [1: CryptoFixtures.key(startingAt: 1), 2: CryptoFixtures.key(startingAt: 2)])
            try MasterKeyFile.write(ring, to: path)
            let lines = String(decoding: try CryptoFixtures.contents(of: path), as: UTF8.self)
                .split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines == [
                "1 \(Encoding.base64(try CryptoFixtures.key(startingAt: 1)))",
                "2 \(Encoding.base64(try CryptoFixtures.key(startingAt: 2)))",
            ])
        }
    }
}
