import Foundation
import Payments
import Vault
import Scheduler

/// The body of `POST /v1/review-queue/resolve`:
/// `{"items": [{"kind": "step"|"transaction", "id": "...", "outcome": "charged", "gatewayTransactionId": "..."}, ...]}`.
///
/// The whole body is checked before anything is resolved: 1 to 100 items, each naming its kind
/// and id once, each outcome held to the single resolve routes' rules. A broken item refuses the
/// request (422 naming `items[i].field`) and nothing is resolved.
struct ReviewQueueResolveRequest: Decodable {
    /// The items, in the order given.
    var items: [ReviewItemResolution]

    private enum CodingKeys: String, CodingKey { case items }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try ReviewQueueItems.list(container, key: .items)
        var items: [ReviewItemResolution] = []
        while !list.isAtEnd {
            let index = list.currentIndex
            let itemDecoder = try list.superDecoder()
            let reference = try ReviewQueueItems.reference(itemDecoder, index: index)
            let resolution: ReviewResolution
            do {
                resolution = try ReviewResolutionRequest(from: itemDecoder).resolution
            } catch let ReviewResolutionError.invalid(field, rule, message) {
                throw APIError.invalid("items[\(index)]: \(message)", code: rule, param: "items[\(index)].\(field)")
            }
            items.append(ReviewItemResolution(kind: reference.kind, id: reference.id, resolution: resolution))
        }
        try ReviewQueueItems.checkDistinct(items.map { ReviewItemReference(kind: $0.kind, id: $0.id) })
        self.items = items
    }
}

/// The body of `POST /v1/review-queue/lookup`: `{"items": [{"kind": "step"|"transaction", "id": "..."}, ...]}`,
/// 1 to 100 items, each named once.
struct ReviewQueueLookupRequest: Decodable {
    /// The items, in the order given.
    var items: [ReviewItemReference]

    private enum CodingKeys: String, CodingKey { case items }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try ReviewQueueItems.list(container, key: .items)
        var items: [ReviewItemReference] = []
        while !list.isAtEnd {
            let index = list.currentIndex
            items.append(try ReviewQueueItems.reference(try list.superDecoder(), index: index))
        }
        try ReviewQueueItems.checkDistinct(items)
        self.items = items
    }
}

/// The rules both bodies share.
enum ReviewQueueItems {
    /// Longest id accepted (ours are under 40 characters).
    static let maximumIDLength = 64

    /// The `items` array: present, 1 to ``ReviewQueueService/maximumItems`` long.
    static func list<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, key: Key) throws -> any UnkeyedDecodingContainer {
        guard container.contains(key), let list = try? container.nestedUnkeyedContainer(forKey: key) else {
            throw APIError.invalid("items is required: an array of the steps and transactions to act on.", code: "required", param: "items")
        }
        guard let count = list.count, (1...ReviewQueueService.maximumItems).contains(count) else {
            throw APIError.invalid(
                "items must hold 1 to \(ReviewQueueService.maximumItems) items; send more in further requests.", code: "invalid_value", param: "items")
        }
        return list
    }

    /// `kind` and `id` of the item at `index`.
    static func reference(_ decoder: any Decoder, index: Int) throws -> ReviewItemReference {
        enum Keys: String, CodingKey { case kind, id }
        guard let container = try? decoder.container(keyedBy: Keys.self) else {
            throw APIError.invalid("items[\(index)] must be an object.", code: "invalid_value", param: "items[\(index)]")
        }
        guard let text = try? container.decode(String.self, forKey: .kind), let kind = ReviewItemKind(rawValue: text) else {
            throw APIError.invalid("items[\(index)].kind must be step or transaction.", code: "invalid_value", param: "items[\(index)].kind")
        }
        guard let id = try? container.decode(String.self, forKey: .id), (1...maximumIDLength).contains(id.count),
            id.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
        else {
            throw APIError.invalid(
                "items[\(index)].id must be the id of a \(kind.rawValue) (1 to \(maximumIDLength) letters, digits, '_' or '-').", code: "invalid_value",
                param: "items[\(index)].id")
        }
        do {
            try CardNumberShape.refuse(id, field: "id")
        } catch {
            throw APIError.invalid("items[\(index)].id: \(error.message)", code: error.code, param: "items[\(index)].id")
        }
        return ReviewItemReference(kind: kind, id: id)
    }

    /// 422 when an item is named twice: its second resolution would only be refused.
    static func checkDistinct(_ references: [ReviewItemReference]) throws {
        var seen = Set<ReviewItemReference>()
        for (index, reference) in references.enumerated() where !seen.insert(reference).inserted {
            throw APIError.invalid(
                "items[\(index)] names a \(reference.kind.rawValue) an earlier item names; name each item once.", code: "duplicate_item",
                param: "items[\(index)].id")
        }
    }
}
