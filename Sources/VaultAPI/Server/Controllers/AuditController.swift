import Foundation
import Hummingbird
import Vault

/// `GET /v1/audit-events`: the merchant's audit trail, newest first (role `admin` only), filtered by
/// `actor`, `action`, `objectType`, `objectId` (exact matches) and `from`/`to` (RFC 3339 instants, both included).
struct AuditController {
    let store: any AuditStore
    /// Seals the list's cursors.
    let cursorKeys: ListCursorKeys

    func addRoutes(to api: APIRoutes) {
        // Who did what is an operator's view: not for `readonly` keys.
        api.adminOnly.get("audit-events") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "audit-events")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            let filter = try Self.filter(request.uri.queryParameters)
            let events = try await store.auditEvents(
                merchantID: context.merchant.id, filter: filter, before: try page.afterSequence, limit: page.limit + 1)
            return try JSONCoding.response(Page(fetched: events, limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
    }

    /// The filters of the query; a 422 naming the parameter when one is malformed.
    static func filter(_ parameters: Parameters) throws -> AuditFilter {
        var filter = AuditFilter(
            actor: try QueryParameter.text("actor", in: parameters), action: try QueryParameter.text("action", in: parameters),
            objectType: try QueryParameter.text("objectType", in: parameters), objectID: try QueryParameter.text("objectId", in: parameters))
        filter.from = try QueryParameter.instant("from", in: parameters)
        filter.to = try QueryParameter.instant("to", in: parameters)
        if let from = filter.from, let to = filter.to, to < from {
            throw APIError.invalid("to must not be before from.", code: "invalid_range", param: "to")
        }
        return filter
    }
}
