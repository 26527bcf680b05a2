import Foundation
import Hummingbird
import Vault

/// `POST /v1/capture-sessions/{id}/card`: the one card of a capture session, sent from the
/// cardholder's device (the hosted card field or a mobile app) with the session's client secret
/// as the bearer token, never with an API key.
///
/// The secret is checked from the head, before the body is read. A wrong secret, a spent or
/// expired session and an unknown session get the same 401 (``APIError/captureRefused``) and are
/// counted by the failed-authentication limiter of the client address, as a wrong API key is.
/// CSRF cannot reach it: it takes no cookie, only an `Authorization` header and a JSON body, which
/// a cross-site form cannot send and a cross-origin script cannot send without a CORS preflight,
/// which the vault never grants.
struct CaptureCardController {
    let sessions: CaptureSessionService
    /// Where failed authentications are counted per client address.
    let limits: any RequestLimitStore
    let maxBodyBytes: Int

    /// The route's path as the router prints it (recorded as authenticated by a client secret).
    static let path = "capture-sessions/:id/card"

    func addRoutes(to group: RouterGroup<VaultRequestContext>) {
        let body = RequestBodyMiddleware<VaultRequestContext>(maxBodyBytes: maxBodyBytes)
        group.post(RouterPath(Self.path)) { request, context in
            let id = try context.parameters.require("id")
            guard let header = request.headers[.authorization], let secret = AuthenticationMiddleware.bearerToken(in: header) else {
                throw await refusal(context)
            }
            let admitted: AdmittedCapture
            do {
                admitted = try await sessions.admit(clientSecret: secret, sessionID: id)
            } catch CaptureSessionError.refused {
                throw await refusal(context)
            }
            context.caller.record(merchantID: admitted.merchantID, apiKeyID: admitted.sessionID)
            return try await body.handle(request, context: context) { request, context in
                let submission = try await JSONCoding.decode(CaptureCardSubmission.self, from: request)
                let card: CaptureSessionCard
                do {
                    card = try await sessions.submit(admitted, source: submission.source)
                } catch CaptureSessionError.refused {
                    throw await refusal(context)
                }
                return try JSONCoding.response(CapturedCardResponse(card), status: .created)
            }
        }
    }

    /// The refusal, counted against the client address: 401, or 429 once it has failed too often.
    private func refusal(_ context: VaultRequestContext) async -> APIError {
        let subject = FailedAuthenticationLimiter.key(for: context.clientAddress)
        // A store that cannot be reached answers 401 (the limiter only ever slows failing requests).
        switch (try? await limits.take(.failedAuthentication, subject: subject)) ?? .allowed {
        case .allowed: return .captureRefused
        case .limited(let seconds): return .authenticationRateLimited(retryAfterSeconds: seconds)
        }
    }
}

/// What the submitter of a card learns: the token and the masked card, never the number.
struct CapturedCardResponse: Encodable {
    var description = "Secure Card Saved"
    var secureCardReference: String
    var maskedNumber: String
    var cardType: String

    init(_ card: CaptureSessionCard) {
        secureCardReference = card.secureCardReference
        maskedNumber = card.maskedNumber
        cardType = card.cardType.rawValue
    }
}

extension APIError {
    /// 401: this client secret submits no card, whichever the reason (unknown session, wrong
    /// secret, spent, expired): the answer never tells a guesser which part was wrong.
    static var captureRefused: APIError {
        var error = APIError(
            status: .unauthorized, type: "authentication_error", code: "capture_session_refused",
            message: "This capture session does not take a card with this client secret: it may be wrong, spent or expired.")
        error.headers[.wwwAuthenticate] = "Bearer"
        return error
    }
}
