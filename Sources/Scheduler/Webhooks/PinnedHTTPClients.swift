import AsyncHTTPClient
import Synchronization

/// HTTP clients that each connect one host name to one checked address.
///
/// AsyncHTTPClient resolves names itself, at connection time; a client whose `dnsOverride` maps
/// the name to an IP literal connects to that address without resolving anything, while still
/// sending the name as `Host` and checking the TLS certificate (and SNI) against the name. The
/// webhook transport resolves and checks a callback's name, then sends through the client pinned
/// to the address it checked, so the address connected to is the address checked.
///
/// Clients are kept (their connections are reused) up to `capacity` host-address pairs; the least
/// recently used pair beyond that is shut down once its requests in flight have finished.
final class PinnedHTTPClients: Sendable {
    private struct Key: Hashable {
        var host: String
        var address: String
    }

    private struct Entry {
        var client: HTTPClient
        var inFlight: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var retiring: [ObjectIdentifier: Entry] = [:]
        var tick: UInt64 = 0
    }

    /// The clients of every webhook transport in the process.
    static let shared = PinnedHTTPClients(capacity: 64)

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with the client that connects `host` to `address` (an IP literal).
    func withClient<T: Sendable>(host: String, address: String, _ body: (HTTPClient) async -> T) async -> T {
        let client = acquire(Key(host: host, address: address))
        let result = await body(client)
        release(Key(host: host, address: address), client)
        return result
    }

    /// How many pinned clients are open (kept or retiring), for tests.
    var openCount: Int { state.withLock { $0.entries.count + $0.retiring.count } }

    /// Shuts every client down (a cache that is not the process-wide one must be emptied before
    /// it is released: AsyncHTTPClient requires every client to be shut down).
    func shutDownAll() async {
        let clients = state.withLock { state -> [HTTPClient] in
            defer {
                state.entries = [:]
                state.retiring = [:]
            }
            return state.entries.values.map(\.client) + state.retiring.values.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
    }

    private func acquire(_ key: Key) -> HTTPClient {
        let (client, retired) = state.withLock { state -> (HTTPClient, HTTPClient?) in
            state.tick += 1
            if var entry = state.entries[key] {
                entry.inFlight += 1
                entry.lastUse = state.tick
                state.entries[key] = entry
                return (entry.client, nil)
            }
            var configuration = HTTPWebhookTransport.clientConfiguration()
            // Both spellings: the client looks the override up by the host as its URL parser reports it.
            configuration.dnsOverride[key.host] = key.address
            configuration.dnsOverride[key.host.lowercased()] = key.address
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            state.entries[key] = Entry(client: client, inFlight: 1, lastUse: state.tick)
            guard state.entries.count > capacity,
                let (oldest, entry) = state.entries.filter({ $0.key != key }).min(by: { $0.value.lastUse < $1.value.lastUse })
            else { return (client, nil) }
            state.entries[oldest] = nil
            if entry.inFlight == 0 { return (client, entry.client) }
            state.retiring[ObjectIdentifier(entry.client)] = entry
            return (client, nil)
        }
        if let retired { shutDown(retired) }
        return client
    }

    private func release(_ key: Key, _ client: HTTPClient) {
        let retired = state.withLock { state -> HTTPClient? in
            if var entry = state.entries[key], entry.client === client {
                entry.inFlight -= 1
                state.entries[key] = entry
                return nil
            }
            let id = ObjectIdentifier(client)
            guard var entry = state.retiring[id] else { return nil }
            entry.inFlight -= 1
            if entry.inFlight > 0 {
                state.retiring[id] = entry
                return nil
            }
            state.retiring[id] = nil
            return entry.client
        }
        if let retired { shutDown(retired) }
    }

    private func shutDown(_ client: HTTPClient) {
        Task { try? await client.shutdown() }
    }
}
