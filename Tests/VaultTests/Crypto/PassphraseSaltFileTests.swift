import Foundation
import Testing
import Vault

/// The passphrase salt file carries its Argon2id cost, reads the bare salt of earlier builds as the
/// cost they used, and refuses a cost an edit lowered.
@Suite struct PassphraseSaltFileTests {
    private let path = "/keys/passphrase.salt"
    private let salt = [UInt8](repeating: 7, count: PassphraseKDF.saltLength)

    @Test func theFileStatesTheAlgorithmCostVersionAndSaltAndReadsBackAsWritten() throws {
        let file = PassphraseSaltFile(salt: salt, cost: .moderate, kekVersion: 3)
        #expect(file.text == "argon2id v=19 m=262144 t=3 kek=3 salt=\(Encoding.base64(salt))\n")
        #expect(try PassphraseSaltFile.parse(Array(file.text.utf8), path: path) == file)
        let fresh = PassphraseSaltFile.fresh(kekVersion: 1)
        #expect(fresh.cost == .moderate && fresh.salt.count == PassphraseKDF.saltLength && fresh.salt != PassphraseSaltFile.fresh(kekVersion: 1).salt)
    }

    @Test func theSixteenBytesOfAnEarlierBuildAreTheSaltAtTheModerateCostAsVersionOne() throws {
        let legacy = try PassphraseSaltFile.parse(salt, path: path)
        #expect(legacy == PassphraseSaltFile(salt: salt, cost: .moderate, kekVersion: 1))
    }

    @Test func aCostAboveTheFloorIsKeptSoALaterDefaultStillOpensTheVault() throws {
        let text = "argon2id v=19 m=524288 t=4 kek=2 salt=\(Encoding.base64(salt))\n"
        let parsed = try PassphraseSaltFile.parse(Array(text.utf8), path: path)
        #expect(parsed.cost == PassphraseKDF.Cost(opsLimit: 4, memLimit: 512 << 20))
        #expect(parsed.kekVersion == 2)
    }

    @Test(arguments: [
        ("m=8 t=1", "below the floor"), ("m=262144 t=1", "below the floor"), ("m=65536 t=3", "below the floor"),
        ("m=8388608 t=3", "above the ceiling"), ("m=262144 t=65", "above the ceiling"),
    ])
    func aCostOutsideTheFloorAndCeilingIsRefusedNamingTheFile(cost: String, reason: String) throws {
        let text = "argon2id v=19 \(cost) kek=1 salt=\(Encoding.base64(salt))\n"
        let error = try #require(throws: PassphraseSaltFile.Invalid.self) { try PassphraseSaltFile.parse(Array(text.utf8), path: path) }
        #expect(error.description.contains(path) && error.description.contains(reason), "\(error)")
    }

    @Test(arguments: [
        "argon2i v=19 m=262144 t=3 kek=1 salt=BwcHBwcHBwcHBwcHBwcHBw==", "argon2id v=16 m=262144 t=3 kek=1 salt=BwcHBwcHBwcHBwcHBwcHBw==",
        "argon2id v=19 m=262144 t=3 kek=0 salt=BwcHBwcHBwcHBwcHBwcHBw==", "argon2id v=19 m=262144 t=3 kek=1 salt=BwcHBw==",
        "argon2id v=19 m=262144 t=3 salt=BwcHBwcHBwcHBwcHBwcHBw==", "argon2id v=19 m=262144 m=262144 t=3 kek=1 salt=BwcHBwcHBwcHBwcHBwcHBw==",
        "argon2id v=19 m=lots t=3 kek=1 salt=BwcHBwcHBwcHBwcHBwcHBw==", "", "fifteen bytes!!",
    ])
    func anythingButTheTwoFormatsIsRefused(text: String) throws {
        #expect(throws: PassphraseSaltFile.Invalid.self) { try PassphraseSaltFile.parse(Array(text.utf8), path: path) }
    }

    @Test func theFileIsWrittenPrivateAndLoadedBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("salt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = (directory as NSString).appendingPathComponent("passphrase.salt")
        #expect(try PassphraseSaltFile.load(path: file) == nil)
        let written = PassphraseSaltFile(salt: salt, cost: .moderate, kekVersion: 1)
        try written.write(to: file)
        #expect(try PassphraseSaltFile.load(path: file) == written)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }
}
