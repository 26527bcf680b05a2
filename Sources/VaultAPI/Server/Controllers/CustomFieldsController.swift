import Hummingbird
import Vault

/// `GET` / `PUT /v1/custom-fields`: the merchant's custom field definitions.
struct CustomFieldsController {
    let store: any CustomFieldStore

    struct Body: Codable {
        var fields: [CustomFieldDefinition]
    }

    func addRoutes(to api: APIRoutes) {
        api.admitting(.admin, .readonly).get("custom-fields") { _, context in
            try JSONCoding.response(Body(fields: try await store.customFieldDefinitions(merchantID: context.merchant.id)))
        }
        api.adminOnly.put("custom-fields") { request, context in
            let body = try await JSONCoding.decode(Body.self, from: request)
            try CustomFieldDefinition.validateDefinitions(body.fields)
            try await store.replaceCustomFieldDefinitions(
                body.fields, merchantID: context.merchant.id,
                audit: AuditEntry(merchantID: context.merchant.id, actor: context.identity.actor, action: "custom_fields.replaced",
                                  objectType: "custom_fields", objectID: context.merchant.id,
                                  details: ["names": body.fields.map(\.name).joined(separator: ",")]))
            return try JSONCoding.response(body)
        }
    }
}
