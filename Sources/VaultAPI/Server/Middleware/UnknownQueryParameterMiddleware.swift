import Hummingbird

/// A query parameter the operation's OpenAPI description does not declare is a 400
/// `unknown_parameter` naming it: `?stauts=declined` must not answer every transaction.
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
        if !parameters.isEmpty, let operation = contract.operation(method: request.method.rawValue, path: request.uri.path),
            let error = operation.unknownQueryParameter(in: parameters.map { String($0.key) })
        {
            throw error
        }
        return try await next(request, context)
    }
}
