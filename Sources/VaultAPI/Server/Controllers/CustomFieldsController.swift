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
            try await CustomFieldService(store: store).replace(body.fields, merchantID: context.merchant.id, actor: context.identity.actor)
            return try JSONCoding.response(body)
        }
    }
}
