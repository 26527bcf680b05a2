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
}
