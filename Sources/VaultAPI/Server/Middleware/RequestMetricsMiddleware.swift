import Hummingbird
import Metrics
import Synchronization

/// Request counts and durations per route, method and the status the client was sent.
///
/// Replaces Hummingbird's `MetricsMiddleware`, which counted every thrown error it could not map
/// to a status as a 500: a card registration refused with a 422 (a domain error turned into the
/// envelope by `ErrorEnvelopeMiddleware`) showed up as a 500 in `/metrics` while the access log
/// said 422. This one sits outside `ErrorEnvelopeMiddleware`, so it sees the very response the
/// access line records, and counts it when the response is returned (as the access line does),
/// not after its body is written. Same metric names and labels as Hummingbird's:
/// `hb_requests` and `http_server_request_duration` by `http_route`,
/// `http_request_method` and `http_response_status_code`; `http_server_active_requests` by method.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let metrics: RequestMetrics

    init(factory: any MetricsFactory) {
        metrics = RequestMetrics(factory: factory)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let active = metrics.active(request.method)
        active.increment()
        defer { active.decrement() }
        let status: HTTPResponse.Status
        do {
            let response = try await next(request, context)
            status = response.status
            metrics.record(route: context.endpointPath ?? "NotFound", method: request.method, status: status, elapsed: ContinuousClock.now - started)
            return response
        } catch {
            // Not reached behind ErrorEnvelopeMiddleware, which answers every error.
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.record(route: context.endpointPath ?? "NotFound", method: request.method, status: status, elapsed: ContinuousClock.now - started)
            throw error
        }
    }
}

/// The metric handles, made once per route, method and status.
private final class RequestMetrics: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private struct Handles: Sendable {
        let counter: Counter
        let timer: Metrics.Timer
    }

    private let factory: any MetricsFactory
    private let handles = Mutex<[Key: Handles]>([:])
    private let activeMeters = Mutex<[HTTPRequest.Method: Meter]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func active(_ method: HTTPRequest.Method) -> Meter {
        activeMeters.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)], factory: factory)
            meters[method] = meter
            return meter
        }
    }

    func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, elapsed: Duration) {
        let key = Key(route: route, method: method, status: Int(status.code))
        let handles = handles.withLock { handles in
            if let existing = handles[key] { return existing }
            let dimensions = [("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code))]
            let made = Handles(
                counter: Counter(label: "hb.requests", dimensions: dimensions, factory: factory),
                timer: Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory))
            handles[key] = made
            return made
        }
        handles.counter.increment()
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        handles.timer.recordNanoseconds(nanoseconds)
    }
}
