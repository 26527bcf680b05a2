import Foundation
public import Vault

/// A recorded run with its position in the runs' insertion order (the list's sort key).
public struct ListedChargeRun: Sendable, Equatable {
    /// The run's insertion sequence.
    public var sequence: Int64
    /// The run as recorded.
    public var record: ChargeRunRecord

    /// Creates a listed run.
    public init(sequence: Int64, record: ChargeRunRecord) {
        self.sequence = sequence
        self.record = record
    }
}

/// Reads the runs that charged a merchant's steps.
public protocol ChargeRunHistoryStore: Sendable {
    /// The runs that charged `merchantID`'s steps, newest first: its own (started over the API or
    /// by `vault charge run --merchant`) and those of every merchant (`vault charge run` without
    /// `--merchant`, recorded without a merchant), before the sequence `beforeSequence`, at most `limit`.
    func chargeRuns(merchantID: String, beforeSequence: Int64?, limit: Int) async throws -> [ListedChargeRun]
}

/// A charge run as a merchant's operator sees it.
public struct ChargeRunView: Sendable, Equatable {
    /// Which steps a run charged.
    public enum Scope: String, Sendable, Equatable {
        /// Only this merchant's.
        case merchant
        /// Every merchant's (`vault charge run` without `--merchant`, e.g. the nightly cron job).
        case allMerchants = "all_merchants"
    }

    /// The run as recorded.
    public var record: ChargeRunRecord
    /// Which steps it charged.
    public var scope: Scope
    /// Its summary (progress while running); nil before the first one, and for a run of every
    /// merchant, whose summary counts other merchants' charges and names them.
    public var summary: ChargeRunSummary?
    /// The list's sort key.
    public var sequence: Int64
}

/// The merchant's charge runs, whoever started them: the API, cron or an operator's `vault charge run`.
public struct ChargeRunHistory: Sendable {
    private let store: any ChargeRunHistoryStore

    /// A history over `store`.
    public init(store: any ChargeRunHistoryStore) {
        self.store = store
    }

    /// Up to `limit` runs that charged `merchant`'s steps, newest first, before `beforeSequence`.
    public func list(merchant: Merchant, beforeSequence: Int64?, limit: Int) async throws -> [ChargeRunView] {
        try await store.chargeRuns(merchantID: merchant.id, beforeSequence: beforeSequence, limit: limit).map { listed in
            let scope: ChargeRunView.Scope = listed.record.merchantID == nil ? .allMerchants : .merchant
            return ChargeRunView(
                record: listed.record, scope: scope, summary: scope == .merchant ? listed.record.decodedSummary : nil, sequence: listed.sequence)
        }
    }
}

extension ChargeRunRecord {
    /// The stored summary as the runner wrote it (ISO 8601 instants); nil when none or unreadable.
    public var decodedSummary: ChargeRunSummary? {
        guard let summary else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an instant"))
            }
            return date
        }
        return try? decoder.decode(ChargeRunSummary.self, from: Data(summary.utf8))
    }
}
