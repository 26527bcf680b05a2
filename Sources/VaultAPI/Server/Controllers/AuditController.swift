import Foundation
import Hummingbird
import Vault

/// `GET /v1/audit-events`: the merchant's audit trail, newest first (role `admin` only).
struct AuditController {
    let store: any AuditStore

    func addRoutes(to group: RouterGroup<AuthenticatedContext>) {
        group.get("audit-events") { request, context in
            guard context.identity.apiKey.role == .admin else { throw APIError.forbidden(role: context.identity.apiKey.role.rawValue) }
            let page = try PageRequest(query: request.uri)
            var before: Int64?
            if let after = page.after {
                guard let sequence = Int64(after) else {
                    throw APIError.invalid("cursor is not a cursor this API returned.", code: "invalid_cursor", param: "cursor")
                }
                before = sequence
            }
            let events = try await store.auditEvents(merchantID: context.merchant.id, before: before, limit: page.limit + 1)
            return try JSONCoding.response(Page(fetched: events, limit: page.limit) { String($0.sequence) })
        }
    }
}
