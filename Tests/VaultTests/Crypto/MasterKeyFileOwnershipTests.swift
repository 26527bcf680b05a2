import Foundation
import Testing
@testable import Vault

/// A local user must not be able to hand the vault a key file of their choosing: the file is
/// opened without following symbolic links and must belong to the vault's own user.
@Suite struct MasterKeyFileOwnershipTests {
    @Test func aSymbolicLinkToAValidKeyFileIsRefused() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let target = directory + "/elsewhere.key"
            try MasterKeyFile.createIfAbsent(path: target)
            let path = directory + "/master.key"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            #expect(throws: MasterKeyFile.LoadError.symbolicLink(path: path)) { try MasterKeyFile.load(path: path) }
            #expect(MasterKeyFile.LoadError.symbolicLink(path: path).description.contains("symbolic link"))
            // The real file itself still loads.
            #expect(try MasterKeyFile.load(path: target).versions == [1])
        }
    }

    @Test func aDanglingSymbolicLinkIsRefusedNotReportedMissing() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: directory + "/not-yet-there")
            #expect(throws: MasterKeyFile.LoadError.symbolicLink(path: path)) { try MasterKeyFile.load(path: path) }
        }
    }

    @Test func aKeyFileOwnedByAnotherUserIsRefused() throws {
        try CryptoFixtures.withTemporaryDirectory { directory in
            let path = directory + "/master.key"
            try MasterKeyFile.createIfAbsent(path: path)
            let mine = UInt32(getuid())
            // Changing a file's owner needs root; the check is the same with the expected owner changed.
            let other = mine &+ 1
            #expect(throws: MasterKeyFile.LoadError.wrongOwner(path: path, owner: mine, expected: other)) {
                try MasterKeyFile.load(path: path, owner: other)
            }
            #expect(MasterKeyFile.LoadError.wrongOwner(path: path, owner: mine, expected: other).description.contains("chown"))
            #expect(try MasterKeyFile.load(path: path).versions == [1])
        }
    }
}
