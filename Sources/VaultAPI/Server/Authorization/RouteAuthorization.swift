import Hummingbird
import Synchronization
import Vault

/// Which API key roles each `/v1` route admits, recorded as the routes are declared (by
/// ``AuthorizedRoutes``), so the table that answers a request and the one an operator reads are the same.
final class RouteAuthorization: Sendable {
    /// One route and the roles it admits.
    struct Entry: Sendable, Hashable {
        /// The HTTP method.
        var method: HTTPRequest.Method
        /// The route's path as the router prints it, e.g. `/v1/secure-cards/{merchantReference}`.
        var path: String
        /// The roles whose keys may call it; never empty.
        var roles: Set<APIKeyRole>
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// An empty table.
    init() {}

    /// Records that `method path` admits `roles`.
    func record(method: HTTPRequest.Method, path: RouterPath, roles: Set<APIKeyRole>) {
        let entry = Entry(method: method, path: path.description, roles: roles)
        entries.withLock { $0[Self.key(method: method, path: entry.path)] = entry }
    }

    /// The roles `method path` admits, nil for a route declared without them.
    func roles(method: HTTPRequest.Method, path: String) -> Set<APIKeyRole>? {
        entries.withLock { $0[Self.key(method: method, path: path)]?.roles }
    }

    /// Every recorded route, by path then method.
    var all: [Entry] {
        entries.withLock { Array($0.values) }.sorted { ($0.path, $0.method.rawValue) < ($1.path, $1.method.rawValue) }
    }

    private static func key(method: HTTPRequest.Method, path: String) -> String { method.rawValue + " " + path }
}
