import Testing
@testable import Vault

/// The operator password floor and its Argon2id hashes.
@Suite struct OperatorPasswordTests {
    @Test(arguments: ["", "short", "elevenchars"])
    func aPasswordShorterThanTwelveIsRefused(password: String) {
        #expect(OperatorPassword.weakness(of: password) == .tooShort)
    }

    @Test(arguments: ["123456789012", "Password1234", "qwertyuiop12", "P@ssw0rd2024!", "Administrator", "letmein12345"])
    func aCommonPasswordIsRefused(password: String) {
        #expect(OperatorPassword.weakness(of: password) == .common)
    }

    @Test(arguments: ["blue kettle harbour", "tR7#vq9!Lm2x", "correct horse battery staple"])
    func aLongUncommonPasswordIsAccepted(password: String) {
        #expect(OperatorPassword.weakness(of: password) == nil)
    }

    @Test func aHashIsArgon2idAndVerifiesOnlyItsPassword() throws {
        let hash = try OperatorPassword.hash("blue kettle harbour", cost: .minimum)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(!hash.contains("kettle"))
        #expect(OperatorPassword.verify("blue kettle harbour", hash: hash))
        #expect(!OperatorPassword.verify("blue kettle harbouR", hash: hash))
        #expect(!OperatorPassword.verify("blue kettle harbour", hash: "not a hash"))
        #expect(try OperatorPassword.hash("blue kettle harbour", cost: .minimum) != hash, "a fresh salt each time")
    }
}
