import AsyncHTTPClient
import Logging
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

/// How one HTTP exchange with a gateway ended, split by what matters for money: whether the
/// request could have reached the gateway.
enum HTTPExchange: Sendable {
    /// The gateway answered with this status and body (and, for a 429 or 503, how long it asked
    /// to wait in `Retry-After`, when it said).
    case response(status: Int, body: [UInt8], retryAfter: Duration? = nil)
    /// Nothing left this machine (connection refused, connect timeout, bad URL): safe to resend.
    case notSent(reason: String)
    /// The request was or may have been delivered, but no complete answer came back
    /// (timeout after sending, connection lost, truncated body).
    case lost(reason: String)
}

extension HTTPExchange {
    /// The body of a look-up's 200 answer, or why the look-up could not be made (a look-up that
    /// could not be made never proves anything).
    var lookupBody: Result<[UInt8], LookupUnavailable> {
        switch self {
        case let .notSent(reason), let .lost(reason): .failure(LookupUnavailable(reason: reason))
        case let .response(status, body, _): status == 200 ? .success(body) : .failure(LookupUnavailable(reason: "http_\(status)"))
        }
    }
}

/// Why a look-up could not be made (``GatewayLookup/unavailable(_:)``'s reason).
struct LookupUnavailable: Error, Sendable {
    var reason: String
}

/// Posts request bodies to a gateway over AsyncHTTPClient and classifies failures.
///
/// Errors are reduced to short reason codes: AsyncHTTPClient errors never contain the body, but
/// the URL could carry a secret, so no error text is passed through.
struct GatewayHTTP: Sendable {
    /// The shared client.
    let client: HTTPClient
    /// The deadline of one exchange.
    let timeout: Duration
    /// Largest reply accepted (a gateway reply is a few KiB; lists are bigger).
    static let maximumResponseBytes = 8 << 20

    /// Extra time the whole exchange gets beyond ``timeout`` before it is abandoned, so that
    /// AsyncHTTPClient's own deadline (which tells "never sent" from "sent") decides first.
    static let bodyGrace: Duration = .seconds(5)

    /// POSTs `body` to `url` with the given content type (and any `headers`, e.g. a SOAP
    /// action), within ``timeout``.
    ///
    /// AsyncHTTPClient's deadline ends when the response head arrives; a body that stalls after
    /// that is cut off here, shortly after the deadline, and the exchange is `lost`.
    func post(url: String, contentType: String, headers: [(String, String)] = [], body: [UInt8]) async -> HTTPExchange {
        let limit = timeout + Self.bodyGrace
        return await withTaskGroup(of: HTTPExchange?.self) { group in
            group.addTask { await self.exchange(url: url, contentType: contentType, headers: headers, body: body) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .lost(reason: "timeout")
        }
    }

    private func exchange(url: String, contentType: String, headers: [(String, String)], body: [UInt8]) async -> HTTPExchange {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.headers.add(name: "Accept", value: "*/*")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: Self.timeAmount(timeout))
        } catch {
            return Self.classify(error)
        }
        do {
            let buffer = try await response.body.collect(upTo: Self.maximumResponseBytes)
            return .response(status: Int(response.status.code), body: Array(buffer.readableBytesView),
                             retryAfter: Self.retryAfter(response.headers.first(name: "Retry-After")))
        } catch {
            return .lost(reason: "response_body_\(Self.reasonCode(error))")
        }
    }

    /// `notSent` for errors raised before a connection carried the request, `lost` otherwise.
    static func classify(_ error: any Error) -> HTTPExchange {
        if error is NIOConnectionError {
            return .notSent(reason: "connection_failed")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout,
                 .httpProxyHandshakeTimeout:
                return .notSent(reason: "connect_timeout")
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
                return .notSent(reason: "invalid_url")
            case .alreadyShutdown:
                return .notSent(reason: "client_shut_down")
            case .deadlineExceeded, .readTimeout:
                return .lost(reason: "timeout")
            case .remoteConnectionClosed:
                return .lost(reason: "connection_closed")
            case .cancelled:
                return .lost(reason: "cancelled")
            default:
                return .lost(reason: "http_error")
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
                return .notSent(reason: "connection_failed")
            default:
                return .lost(reason: "io_error")
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return .notSent(reason: "connect_timeout")
        }
        if error is CancellationError {
            return .lost(reason: "cancelled")
        }
        return .lost(reason: reasonCode(error))
    }

    /// The result of an HTTP status other than 200 from a transaction endpoint: 5xx may have
    /// been processed (in doubt); 408 and 429 were not (retry later); other 4xx are
    /// configuration mistakes (final).
    ///
    /// A 3xx is `gateway_redirect`, a final error: clients never follow redirects
    /// (``GatewayRegistry/clientConfiguration()``), so the request reached nothing but the
    /// redirecting endpoint, which did not process it (nothing was charged). It is not in doubt and
    /// not retryable: the runner does not send it again in the run, the step stays open and
    /// unsettled (the run exits 1), and a later run looks the charge up before re-sending it with the
    /// same key once the endpoint is fixed. A sale or verification over the API answers 502.
    ///
    /// 429 (Too Many Requests) and 503 (Service Unavailable) are rate limits: nothing was
    /// processed, retry after `Retry-After` (NMI documents 429 for its system-wide limit,
    /// https://docs.nmi.dev/reference/rate-limiting; 503 is RFC 9110 §15.6.4 "currently unable to
    /// handle the request", which no gateway document contradicts — a guess, see docs/GATEWAYS.md).
    static func unexpectedStatus(_ status: Int, retryAfter: Duration? = nil) -> GatewayResult {
        switch status {
        case 300...399: .error("gateway_redirect", retryable: false, text: "The gateway endpoint answered with a redirect (HTTP \(status)); redirects are never followed.")
        case 429, 503: .rateLimited("http_\(status)", retryAfter: retryAfter, responseCode: "http_\(status)")
        case 500...599: .inDoubt("http_\(status)")
        case 408: .error("http_\(status)", retryable: true)
        default: .error("http_\(status)", retryable: false)
        }
    }

    /// A `Retry-After` value in seconds (RFC 9110 §10.2.3 delay-seconds); an HTTP-date or
    /// anything else is ignored (the run's own backoff applies).
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingASCIISpaces()), seconds >= 0 else { return nil }
        return .seconds(min(seconds, 86_400))
    }

    /// A short snake-case name of an error's kind, without its message.
    static func reasonCode(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return "timeout"
            case .remoteConnectionClosed: return "connection_closed"
            default: return "http_error"
            }
        }
        if error is CancellationError { return "cancelled" }
        return "transport_error"
    }

    /// A NIO time amount for a Swift duration (whole nanoseconds, saturating).
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let (nanosFromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(seconds < 0 ? 0 : Int64.max) }
        let total = nanosFromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        return .nanoseconds(total.overflow ? Int64.max : max(0, total.partialValue))
    }
}
