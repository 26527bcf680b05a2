import Foundation

extension AuthorizeNetResponses {
    /// One `batchDetailsType` of a settled batch list.
    struct Batch: Decodable, Sendable {
        var batchId: String?
        var settlementTime: Date?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            batchId = container.lenientString("batchId")
            settlementTime = container.lenientString("settlementTimeUTC").flatMap(Self.date)
        }

        /// `2030-01-01T10:00:00Z`, with or without fractional seconds (both are sent).
        static func date(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }

    /// `getSettledBatchListResponse`: `batchList` (XML `batchList/batch`, a JSON array).
    struct BatchList: Decodable, Sendable {
        var batches: [Batch]
        var messages: Messages?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            batches = container.lenientArray("batchList", element: "batch")
            messages = try container.decodeIfPresent(Messages.self, forKey: AnyKey("messages"))
        }
    }
}
