public import AsyncHTTPClient
import Vault
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How one POST of an event ended.
public enum WebhookPostOutcome: Sendable, Equatable {
    /// The receiver answered with this HTTP status.
    case answered(status: Int)
    /// No answer: a short reason such as `timeout` or `connection_failed` (never a body or URL).
    case failed(reason: String)
}

/// Sends one signed event to a receiver. The deliverer depends on this, so tests can count or fail sends.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` with `headers` to `url`, giving up after `timeout`.
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookPostOutcome
}

/// POSTs events over AsyncHTTPClient, only to destinations the operator allows.
///
/// Redirects are not followed (a 3xx is a failed attempt: a moved endpoint must be configured,
/// not discovered), answers are read and thrown away (at most 64 KiB), and the deadline covers
/// the whole exchange, answer body included.
///
/// Every delivery checks its destination before anything is sent: the URL must pass
/// ``EndpointPolicy/callbackEndpoint(_:allowPrivateTargets:)`` (a URL stored before the rules is
/// checked too); a host name is resolved here, every address it resolves to must be allowed
/// (``EndpointPolicy/permitsCallback(to:allowPrivateTargets:)``), and the request goes to the
/// first of the checked addresses through a client pinned to it, never resolving the name again.
/// A refused destination fails the attempt with reason `callback_url_refused` or
/// `callback_address_refused` without a connection being opened.
public struct HTTPWebhookTransport: WebhookTransport {
    /// The process-wide client for webhooks to IP-literal hosts: no redirects, no decompression,
    /// no retried connection attempts (a receiver that refuses fails the attempt at once; the
    /// event's backoff is the retry). Like `HTTPClient.shared` it lives as long as the process and
    /// is never shut down.
    public static let sharedClient: HTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration())

    /// The configuration of every webhook client (the shared one and those pinned to an address).
    static func clientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    static let maximumAnswerBytes = 64 * 1024
    /// Time beyond the deadline before the exchange is abandoned, so AsyncHTTPClient's own
    /// deadline (which names the failure) decides first.
    static let grace: Duration = .seconds(1)

    private let client: HTTPClient
    private let allowPrivateTargets: Bool
    private let resolver: any HostResolver
    private let pinnedClients: PinnedHTTPClients

    /// A transport.
    /// - Parameters:
    ///   - client: the client for URLs whose host is an IP literal (the webhook client by
    ///     default); host names go through clients pinned to their checked address.
    ///   - allowPrivateTargets: whether loopback, private and link-local destinations are allowed
    ///     (`webhooks.allowPrivateTargets`, off by default).
    ///   - resolver: how host names are resolved (`getaddrinfo` by default).
    public init(client: HTTPClient = HTTPWebhookTransport.sharedClient, allowPrivateTargets: Bool = false,
                resolver: any HostResolver = SystemHostResolver()) {
        self.init(client: client, allowPrivateTargets: allowPrivateTargets, resolver: resolver, pinnedClients: .shared)
    }

    init(client: HTTPClient, allowPrivateTargets: Bool, resolver: any HostResolver, pinnedClients: PinnedHTTPClients) {
        self.client = client
        self.allowPrivateTargets = allowPrivateTargets
        self.resolver = resolver
        self.pinnedClients = pinnedClients
    }

    public func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookPostOutcome {
        await withTaskGroup(of: WebhookPostOutcome?.self) { group in
            group.addTask { await self.checkedExchange(url: url, headers: headers, body: body, timeout: timeout) }
            group.addTask {
                try? await Task.sleep(for: timeout + Self.grace)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed(reason: "timeout")
        }
    }

    /// Where a delivery may go, decided before anything is sent.
    enum Destination: Equatable {
        /// The URL's host is an allowed IP literal: connect to it.
        case literal
        /// The URL's host is a name whose addresses were all allowed: connect to this one.
        case pinned(address: String)
        /// Refused, with the attempt's failure reason.
        case refused(reason: String)
    }

    /// Checks the URL and, for a host name, every address it resolves to.
    func destination(of url: String) async -> Destination {
        let endpoint: EndpointURL
        do {
            endpoint = try EndpointPolicy.callbackEndpoint(url, allowPrivateTargets: allowPrivateTargets)
        } catch {
            return .refused(reason: "callback_url_refused")
        }
        if endpoint.address != nil { return .literal }
        let addresses: [NetworkAddress]
        do {
            addresses = try await resolver.addresses(of: endpoint.host)
        } catch {
            return .refused(reason: "dns_failed")
        }
        guard let first = addresses.first else { return .refused(reason: "dns_failed") }
        guard addresses.allSatisfy({ EndpointPolicy.permitsCallback(to: $0, allowPrivateTargets: allowPrivateTargets) }) else {
            return .refused(reason: "callback_address_refused")
        }
        return .pinned(address: first.description)
    }

    private func checkedExchange(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookPostOutcome {
        switch await destination(of: url) {
        case .refused(let reason):
            return .failed(reason: reason)
        case .literal:
            return await exchange(client: client, url: url, headers: headers, body: body, timeout: timeout)
        case .pinned(let address):
            guard let host = try? EndpointURL(parsing: url).host else { return .failed(reason: "callback_url_refused") }
            return await pinnedClients.withClient(host: host, address: address) { pinned in
                await exchange(client: pinned, url: url, headers: headers, body: body, timeout: timeout)
            }
        }
    }

    private func exchange(client: HTTPClient, url: String, headers: [(name: String, value: String)], body: [UInt8],
                          timeout: Duration) async -> WebhookPostOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: Self.timeAmount(timeout))
            var received = 0
            for try await chunk in response.body {
                received += chunk.readableBytes
                if received > Self.maximumAnswerBytes { break }
            }
            return .answered(status: Int(response.status.code))
        } catch {
            return .failed(reason: Self.reason(error))
        }
    }

    /// A short reason code for a transport error, without its message (which could name the URL).
    static func reason(_ error: any Error) -> String {
        if error is NIOConnectionError { return "connection_failed" }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout: return "connect_timeout"
            case .deadlineExceeded, .readTimeout: return "timeout"
            case .invalidURL, .emptyHost, .emptyScheme: return "invalid_url"
            case .remoteConnectionClosed: return "connection_closed"
            case .cancelled: return "cancelled"
            default: return "http_error"
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return "connection_failed"
            default: return "io_error"
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return "connect_timeout" }
        if error is CancellationError { return "cancelled" }
        return "transport_error"
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .nanoseconds(Int64.max) }
        return .nanoseconds(max(0, nanoseconds.partialValue &+ attoseconds / 1_000_000_000))
    }
}
