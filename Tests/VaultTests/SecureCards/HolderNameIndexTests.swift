import PropertyBased
import Testing
@testable import Vault

@Suite struct HolderNameIndexTests {
    @Test(arguments: [
        ("Zoë O'Brien-Smith", ["zoe", "obrien", "smith"]),
        ("ADA  lovelace", ["ada", "lovelace"]),
        ("Ａｄａ Ｌｏｖｅｌａｃｅ", ["ada", "lovelace"]),
        ("MR JOHN Q PUBLIC", ["mr", "john", "q", "public"]),
        ("José José", ["jose"]),
        ("Łukasz Żółw", ["łukasz", "zołw"]),
    ])
    func namesAreNormalizedIntoUniqueTokens(name: String, tokens: [String]) {
        #expect(HolderNameIndex.tokens(of: name) == tokens)
    }

    @Test(arguments: ["", "   ", "-", "'’", ".,;"])
    func aNameWithoutLettersOrDigitsHasNoTokens(name: String) {
        #expect(HolderNameIndex.tokens(of: name).isEmpty)
    }

    @Test func atMostTwelveTokensAreKept() {
        let name = (1...20).map { "n\($0)" }.joined(separator: " ")
        #expect(HolderNameIndex.tokens(of: name).count == HolderNameIndex.maximumTokens)
    }

    /// The ASCII path must give the very tokens Foundation's folding gives, or names registered
    /// before it could no longer be found.
    @Test func anASCIINameGivesTheSameTokensWithoutFoundationsFolding() async {
        let characters = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...127).array(of: 0...40)) { codes in
            let name = String(codes.map { characters[$0] })
            #expect(HolderNameIndex.asciiTokens(of: name) == HolderNameIndex.foldedTokens(of: name), "\(codes)")
        }
        let names = ["MR JOHN Q PUBLIC", "o'brien O'Brien", "A-B_C.d e\tF\r\nG", (1...20).map { "N\($0)" }.joined(separator: " "), "a a A"]
        for name in names where name.utf8.allSatisfy({ $0 < 0x80 }) {
            #expect(HolderNameIndex.asciiTokens(of: name) == HolderNameIndex.foldedTokens(of: name))
        }
    }
}
