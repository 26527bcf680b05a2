import Testing
@testable import Vault

@Suite struct MasterKeyRingTests {
    @Test func currentIsTheHighestVersion() throws {
        let ring = try MasterKeyRing(keys: [1: CryptoFixtures.key(startingAt: 1), 3: CryptoFixtures.key(startingAt: 3)])
        #expect(ring.currentVersion == 3)
        #expect(ring.versions == [1, 3])
        #expect(ring.current.constantTimeEquals(try CryptoFixtures.key(startingAt: 3)))
        #expect(ring.key(version: 1)?.constantTimeEquals(try CryptoFixtures.key(startingAt: 1)) == true)
        #expect(ring.key(version: 2) == nil)
    }

    @Test func invalidRingsAreRefused() throws {
        #expect(throws: MasterKeyRingError.noKeys) { try MasterKeyRing(keys: [:]) }
        #expect(throws: MasterKeyRingError.invalidVersion(0)) { try MasterKeyRing(keys: [0: CryptoFixtures.key()]) }
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) {
            try MasterKeyRing(keys: [1: CryptoFixtures.key(16)])
        }
    }

    @Test func rotationAddsARandomKeyAsCurrentPlusOne() throws {
        let ring = try MasterKeyRing(keys: [1: CryptoFixtures.key(), 2: CryptoFixtures.key(startingAt: 2)])
        let rotated = try ring.addingNewVersion()
        #expect(rotated.versions == [1, 2, 3])
        #expect(rotated.currentVersion == 3)
        #expect(rotated.current.count == 32)
        #expect(!rotated.current.constantTimeEquals(ring.current))
        #expect(rotated.key(version: 2)!.constantTimeEquals(ring.current))
        #expect(ring.versions == [1, 2])
    }

    @Test func removingOldVersionsKeepsTheCurrentOne() throws {
        let ring = try MasterKeyRing(keys: [1: CryptoFixtures.key(), 2: CryptoFixtures.key(startingAt: 2)]).addingNewVersion()
        #expect(ring.removing(versionsBelow: 3).versions == [3])
        #expect(ring.removing(versionsBelow: 2).versions == [2, 3])
        #expect(ring.removing(versionsBelow: 99).versions == [3])
    }

    @Test func environmentValueWithoutVersionIsVersionOne() throws {
        let key = try CryptoFixtures.key()
        let ring = try MasterKeyRing.fromEnvironmentValue("  \(Encoding.base64(key))\n")
        #expect(ring.versions == [1])
        #expect(ring.current.constantTimeEquals(key))
    }

    @Test func environmentValueWithVersionsKeepsEachVersion() throws {
        let one = try CryptoFixtures.key(startingAt: 1)
        let four = try CryptoFixtures.key(startingAt: 4)
        let ring = try MasterKeyRing.fromEnvironmentValue("4:\(Encoding.base64(four)), 1:\(Encoding.base64(one))")
        #expect(ring.versions == [1, 4])
        #expect(ring.currentVersion == 4)
        #expect(ring.key(version: 1)!.constantTimeEquals(one))
        #expect(ring.current.constantTimeEquals(four))
    }

    @Test(arguments: [
        "", "   ", "not base64 at all", "1:", ":AAAA", "x:AAAA", "1:AAAA,", "1:AAAA:BBBB", "-1:AAAA",
    ])
    func garbageEnvironmentValuesAreRefused(value: String) {
        #expect(throws: (any Error).self) { try MasterKeyRing.fromEnvironmentValue(value) }
    }

    @Test func environmentErrorsNameTheEntryButNotTheKey() throws {
        let key = Encoding.base64(try CryptoFixtures.key())
        let value = "1:\(key),2:\(key.dropLast(2))!!"
        do {
            _ = try MasterKeyRing.fromEnvironmentValue(value)
            Issue.record("expected an error")
        } catch let error as CryptoError {
            #expect(error == .invalidEncoding("VAULT_MASTER_KEY entry 2: key is not valid base64"))
            #expect(!error.description.contains(String(key.prefix(8))))
        }
    }

    @Test func environmentValueRefusesShortKeysAndDuplicateVersions() throws {
        let key = Encoding.base64(try CryptoFixtures.key())
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 3)) {
            try MasterKeyRing.fromEnvironmentValue("Zm9v")
        }
        #expect(throws: MasterKeyRingError.duplicateVersion(2)) {
            try MasterKeyRing.fromEnvironmentValue("2:\(key),2:\(key)")
        }
        #expect(throws: MasterKeyRingError.invalidVersion(0)) {
            try MasterKeyRing.fromEnvironmentValue("0:\(key)")
        }
    }

    @Test func passphraseGivesTheSameVersionOneKeyForTheSameSalt() throws {
        let salt = [UInt8](repeating: 7, count: PassphraseKDF.saltLength)
        let first = try MasterKeyRing.fromPassphrase("operator secret", salt: salt, cost: .testing)
        let second = try MasterKeyRing.fromPassphrase("operator secret", salt: salt, cost: .testing)
        #expect(first.versions == [1])
        #expect(first.current.constantTimeEquals(second.current))
        #expect(throws: MasterKeyRingError.emptyPassphrase) {
            try MasterKeyRing.fromPassphrase("", salt: salt, cost: .testing)
        }
    }

    @Test func descriptionListsVersionsOnly() throws {
        let ring = try MasterKeyRing(keys: [1: CryptoFixtures.key(), 2: CryptoFixtures.key(startingAt: 2)])
        #expect(ring.description == "MasterKeyRing(versions: [1, 2], current: 2)")
        #expect(!String(reflecting: ring).contains(Encoding.base64(ring.current).prefix(8)))
    }
}
