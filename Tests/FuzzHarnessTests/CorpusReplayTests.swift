import Foundation
import FuzzHarness
import Testing
import Vault

/// Every committed input of each fuzz target's corpus (`Fuzz/Corpus/<target>/`: the seeds and any
/// minimised crash) run once through the target's body, as `scripts/fuzz.sh` replays them before
/// fuzzing: the bodies are exercised by `make test`, not only compiled.
struct CorpusReplayTests {
    /// The fuzz targets of `Fuzz/`, by executable name.
    enum Target: String, CaseIterable, Sendable {
        case track = "TrackFuzzer"
        case emv = "EMVFuzzer"
        case jsonRequest = "JSONRequestFuzzer"

        func run(_ bytes: [UInt8]) throws {
            switch self {
            case .track: try TrackFuzzTarget.run(bytes)
            case .emv: try EMVFuzzTarget.run(bytes)
            case .jsonRequest: try JSONRequestFuzzTarget.run(bytes)
            }
        }

        /// The committed inputs, by file name.
        func corpus() throws -> [(name: String, bytes: [UInt8])] {
            let directory = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fuzz/Corpus/\(rawValue)", isDirectory: true)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
            return try names.map { name in
                (name: name, bytes: Array(try Data(contentsOf: directory.appendingPathComponent(name))))
            }
        }
    }

    @Test(arguments: Target.allCases)
    func everyCommittedInputKeepsEveryProperty(_ target: Target) throws {
        let corpus = try target.corpus()
        #expect(corpus.count >= 10, "the \(target.rawValue) corpus is missing")
        for input in corpus {
            // The file name, never the input: seeds hold card numbers.
            #expect(throws: Never.self, "\(target.rawValue)/\(input.name)") { try target.run(input.bytes) }
        }
    }

    @Test func anEmptyInputIsNoFinding() throws {
        for target in Target.allCases {
            #expect(throws: Never.self, "\(target.rawValue)") { try target.run([]) }
        }
    }
}

/// The oracle the targets share reports a broken property as a finding, naming the property and
/// never the input.
struct FuzzOracleTests {
    @Test func anErrorQuotingDigitsOfTheCardIsAFinding() {
        let error = CardDataError(field: "card.number", code: "invalid", message: "not a card: 4242424242424242")
        let finding = #expect(throws: FuzzFinding.self) { try FuzzOracle.expectNoCardData(in: error, from: ["4242424242424242"]) }
        #expect(finding?.description.contains("424242") == false)
    }

    @Test func anErrorWithoutTheCardsDigitsIsNoFinding() {
        let error = CardDataError(field: "card.number", code: "invalid", message: "a card number has 12 to 19 digits")
        #expect(throws: Never.self) { try FuzzOracle.expectNoCardData(in: error, from: ["4242424242424242"]) }
    }

    @Test func aWellFormedCardIsNoFinding() throws {
        let card = try CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Ada Lovelace"))
            .capture()
        #expect(throws: Never.self) { try FuzzOracle.expectWellFormed(card) }
    }
}
