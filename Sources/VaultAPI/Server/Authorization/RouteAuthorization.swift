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
    private let clientSecretEntries = Mutex<Set<String>>([])

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

    /// Records that `method path` is called with a capture session's client secret, never an API
    /// key: no role may call it, and the authentication middleware of the API keys is not on it.
    func recordClientSecret(method: HTTPRequest.Method, path: RouterPath) {
        let key = Self.key(method: method, path: path.description)
        clientSecretEntries.withLock { _ = $0.insert(key) }
    }

    /// The routes recorded as authenticated by a client secret, as `METHOD /path`.
    var clientSecretRoutes: Set<String> { clientSecretEntries.withLock { $0 } }

    /// Every recorded route, by path then method.
    var all: [Entry] {
        entries.withLock { Array($0.values) }.sorted { ($0.path, $0.method.rawValue) < ($1.path, $1.method.rawValue) }
    }

    private static func key(method: HTTPRequest.Method, path: String) -> String { method.rawValue + " " + path }
}
