public import AsyncHTTPClient
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

/// POSTs events over AsyncHTTPClient.
///
/// Redirects are not followed (a 3xx is a failed attempt: a moved endpoint must be configured,
/// not discovered), answers are read and thrown away (at most 64 KiB), and the deadline covers
/// the whole exchange, answer body included.
public struct HTTPWebhookTransport: WebhookTransport {
    /// The process-wide client for webhooks: no redirects, no decompression, no retried
    /// connection attempts (a receiver that refuses fails the attempt at once; the event's
    /// backoff is the retry). Like `HTTPClient.shared` it lives as long as the process and is
    /// never shut down.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    static let maximumAnswerBytes = 64 * 1024
    /// Time beyond the deadline before the exchange is abandoned, so AsyncHTTPClient's own
    /// deadline (which names the failure) decides first.
    static let grace: Duration = .seconds(1)

    private let client: HTTPClient

    /// A transport over `client` (the webhook client by default).
    public init(client: HTTPClient = HTTPWebhookTransport.sharedClient) {
        self.client = client
    }

    public func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookPostOutcome {
        await withTaskGroup(of: WebhookPostOutcome?.self) { group in
            group.addTask { await self.exchange(url: url, headers: headers, body: body, timeout: timeout) }
            group.addTask {
                try? await Task.sleep(for: timeout + Self.grace)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed(reason: "timeout")
        }
    }

    private func exchange(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookPostOutcome {
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
