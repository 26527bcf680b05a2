import Foundation
@testable import Payments

/// How the sandbox ledger's documents were written before they were written by hand, kept as the
/// test oracle of ``SandboxLedgerDocumentWriter``: the documents' `Codable` shapes through
/// `JSONEncoder` with sorted keys. `SandboxLedgerDocumentTests` compares the two.
enum OldSandboxLedgerEncoding {
    /// What the store wrote for a transaction.
    static func document(_ transaction: SandboxTransaction) -> String {
        encode(StoredTransaction(transaction), escapingSlashes: true)
    }

    /// What the store wrote for a remembered call.
    static func document(_ call: SandboxRememberedCall) -> String {
        encode(StoredCall(fingerprint: call.fingerprint, result: StoredResult(call.result)), escapingSlashes: true)
    }

    /// The old encoding with slashes left as they are (the hand-written writer's one escaping rule
    /// does not escape them): byte for byte what the writer must produce.
    static func unescapedSlashes(_ transaction: SandboxTransaction) -> String {
        encode(StoredTransaction(transaction), escapingSlashes: false)
    }

    /// The same for a remembered call.
    static func unescapedSlashes(_ call: SandboxRememberedCall) -> String {
        encode(StoredCall(fingerprint: call.fingerprint, result: StoredResult(call.result)), escapingSlashes: false)
    }

    private static func encode(_ value: some Encodable, escapingSlashes: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = escapingSlashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
