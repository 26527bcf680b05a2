import Foundation
import Hummingbird
import Vault

/// The capture-session routes a merchant's back end calls with a secret API key: create a session
/// (admin) and follow it (admin, readonly).
struct CaptureSessionsController {
    let sessions: CaptureSessionService

    func addRoutes(to api: APIRoutes) {
        api.adminOnly.post("capture-sessions") { request, context in
            let body = try await JSONCoding.decode(CaptureSessionRequest.self, from: request)
            let (session, clientSecret) = try await sessions.create(body.session, merchant: context.merchant, actor: context.identity.actor)
            var response = CaptureSessionResponse(session, now: Date())
            response.clientSecret = clientSecret
            return try JSONCoding.response(response, status: .created)
        }
        api.admitting(.admin, .readonly).get("capture-sessions/:id") { _, context in
            let id = try context.parameters.require("id")
            let session = try await sessions.session(id: id, merchant: context.merchant)
            return try JSONCoding.response(CaptureSessionResponse(session, now: Date()))
        }
    }
}

/// A capture session in JSON. `clientSecret` only in the answer that creates it.
struct CaptureSessionResponse: Encodable {
    var id: String
    var clientSecret: String?
    var status: String
    var merchantReference: String
    var allowedOrigin: String
    @ExplicitNull var verify: Bool?
    @ExplicitNull var secureCardReference: String?
    @ExplicitNull var maskedNumber: String?
    @ExplicitNull var cardType: String?
    var createdAt: Date
    var expiresAt: Date

    init(_ session: CaptureSession, now: Date) {
        id = session.id
        status = session.status(at: now)
        merchantReference = session.merchantReference
        allowedOrigin = session.allowedOrigin.value
        verify = session.verify
        secureCardReference = session.card?.secureCardReference
        maskedNumber = session.card?.maskedNumber
        cardType = session.card?.cardType.rawValue
        createdAt = session.createdAt
        expiresAt = session.expiresAt
    }
}
