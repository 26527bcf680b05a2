import Foundation
import HTTPTypes
import Hummingbird

/// Turns the router's 404 for a path it serves, asked with a method it does not serve, into a 405
/// with `Allow` listing the path's methods (RFC 9110 §15.5.6), in the error envelope.
///
/// Hummingbird answers every unmatched method with 404. `buildRouter` adds this middleware after the
/// last route: router middleware added then wraps only the router's not-found responder, so the
/// middleware never sees a request a route handled. It still only converts the not-found responder's
/// own `HTTPError(.notFound)`, never an API 404 (those are `APIError`s).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let allowed = routes.methods(forPath: request.uri.path), !allowed.contains(request.method) else { throw error }
            throw APIError.methodNotAllowed(allowed: allowed)
        }
    }
}

/// The methods each route path serves, matched the way the router's trie matches: a literal
/// segment wins over a parameter at the same depth (`/v1/schedules/preview` before `/v1/schedules/:id`).
struct RouteMethods: Sendable {
    private let paths: [(path: RouterPath, methods: [HTTPRequest.Method])]

    /// The table of a router's routes, taken once they are all added.
    init<Context: RequestContext>(_ routes: [Router<Context>.RouteDescription]) {
        var byPath: [String: (path: RouterPath, methods: [HTTPRequest.Method])] = [:]
        for route in routes {
            byPath[route.path.description, default: (route.path, [])].methods.append(route.method)
        }
        paths = byPath.values.map { ($0.path, $0.methods.sorted { $0.rawValue < $1.rawValue }) }
    }

    /// The methods served at `path`, or nil when no route has that path.
    func methods(forPath path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var best: (rank: [Bool], methods: [HTTPRequest.Method])?
        for entry in paths where entry.path.components.count == segments.count {
            guard zip(entry.path.components, segments).allSatisfy({ element, segment in element ~= segment }) else { continue }
            let rank = entry.path.components.map { element in element == element.description }  // true: a literal segment
            if let current = best, !Self.isMoreSpecific(rank, than: current.rank) { continue }
            best = (rank, entry.methods)
        }
        return best?.methods
    }

    /// Whether a path with literal segments `rank` wins over `other` in the trie: the first
    /// segment where they differ is literal in `rank`.
    private static func isMoreSpecific(_ rank: [Bool], than other: [Bool]) -> Bool {
        zip(rank, other).first { $0 != $1 }?.0 ?? false
    }
}

extension APIError {
    /// 405: the path exists but does not take this method; `Allow` lists the ones it does.
    static func methodNotAllowed(allowed: [HTTPRequest.Method]) -> APIError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        var error = APIError(
            status: .methodNotAllowed, type: "invalid_request_error", code: "method_not_allowed",
            message: "This route does not take that method; it takes \(list).")
        error.headers[.allow] = list
        return error
    }
}
