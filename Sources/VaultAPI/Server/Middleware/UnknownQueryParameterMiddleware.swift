import Hummingbird

/// A query parameter the operation's OpenAPI description does not declare is a 400
/// `unknown_parameter` naming it: `?stauts=declined` must not answer every transaction. A value
/// that breaks ``TextPolicy`` (a control character, longer than declared, a card number in free
/// text such as `q`) is a 422 naming it.
///
/// Decided from the head alone, after authentication and the role check on the API (an
/// unauthenticated request is a 401 whatever its query) and before the body is read.
struct UnknownQueryParameterMiddleware<Context: RequestContext>: RouterMiddleware {
    let contract: OpenAPIContract

    init(contract: OpenAPIContract = .served) {
        self.contract = contract
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parameters = request.uri.queryParameters
        if !parameters.isEmpty, let operation = contract.operation(method: request.method.rawValue, path: request.uri.path) {
            if let error = operation.unknownQueryParameter(in: parameters.map { String($0.key) }) { throw error }
            if let error = operation.textViolation(inQuery: parameters.map { (key: $0.key, value: $0.value) }) { throw error }
        }
        return try await next(request, context)
    }
}
