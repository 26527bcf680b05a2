import Foundation
import Testing
@testable import Vault

@Suite struct OpaqueTokenTests {
    @Test func defaultTokenIsPrefixAndThirtyTwoBase32Characters() {
        let token = OpaqueToken.make(prefix: "sc_")
        #expect(token.hasPrefix("sc_"))
        let body = token.dropFirst(3)
        #expect(body.count == 32)
        #expect(body.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
        #expect(OpaqueToken.isWellFormed(token, prefix: "sc_"))
    }

    @Test(arguments: [(128, 26), (160, 32), (256, 52), (1, 2)])
    func lengthFollowsTheRandomBitsRoundedToBytes(bits: Int, characters: Int) throws {
        let token = OpaqueToken.make(prefix: "k_", randomBits: bits)
        #expect(token.count == 2 + characters)
        #expect(try Encoding.fromBase32(String(token.dropFirst(2))).count == (bits + 7) / 8)
        #expect(OpaqueToken.isWellFormed(token, prefix: "k_", randomBits: bits))
    }

    @Test func tokensAreUnique() {
        let tokens = (0..<1000).map { _ in OpaqueToken.make(prefix: "sc_") }
        #expect(Set(tokens).count == tokens.count)
    }

    @Test(arguments: [
        "sc_", "sc_abc", "xx_" + String(repeating: "a", count: 32), "sc_" + String(repeating: "a", count: 31),
        "sc_" + String(repeating: "a", count: 33), "sc_" + String(repeating: "A", count: 32),
        "sc_" + String(repeating: "a", count: 31) + "1", "sc_" + String(repeating: "a", count: 31) + "=",
    ])
    func malformedTokensAreRecognised(token: String) {
        #expect(!OpaqueToken.isWellFormed(token, prefix: "sc_"))
    }

    @Test func tokensWithNonZeroPaddingBitsAreNotWellFormed() {
        // 128 bits take 26 characters; the last one carries 2 padding bits that must be zero.
        #expect(OpaqueToken.isWellFormed("sc_" + String(repeating: "a", count: 25) + "a", prefix: "sc_", randomBits: 128))
        #expect(!OpaqueToken.isWellFormed("sc_" + String(repeating: "a", count: 25) + "b", prefix: "sc_", randomBits: 128))
    }

    @Test(arguments: [(104, 100), (128, 128), (96, 80)])
    func timeOrderedTokensStartWithTheirMillisecondsAndAreAsLongAsRandomOnes(bits: Int, randomBits: Int) throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.5)
        let token = OpaqueToken.makeTimeOrdered(prefix: "t_", bits: bits, at: now)
        #expect(token.count == OpaqueToken.make(prefix: "t_", randomBits: bits).count)
        let bytes = try Encoding.fromBase32(String(token.dropFirst(2)))
        #expect(bytes.count == (bits + 7) / 8)
        #expect(bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == 1_800_000_000_500)
    }

    @Test func timeOrderedTokensOfOneMillisecondShareTheirTimeAndDifferInTheirRandomPart() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let tokens = (0..<1000).map { _ in OpaqueToken.makeTimeOrdered(prefix: "evt_", bits: 128, at: now) }
        #expect(Set(tokens).count == tokens.count)
        // 48 bits of time fill the first 9 base32 characters (45 bits) completely.
        #expect(Set(tokens.map { $0.prefix(4 + 9) }).count == 1)
        #expect(tokens.allSatisfy { $0.dropFirst(4).allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) } })
    }
}
