import Hummingbird
import Metrics
import NIOCore
import Prometheus
import Synchronization

/// `/metrics` in the Prometheus text format, fed by swift-metrics; served only by the metrics
/// listener (``buildMetricsApplication(settings:registry:logger:onServerRunning:)``).
struct MetricsController {
    let registry: PrometheusCollectorRegistry

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("metrics") { _, _ in
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }
}

/// The process-wide Prometheus registry behind swift-metrics (bootstrapped once per process).
enum VaultMetrics {
    private static let state = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry, bootstrapping swift-metrics with it on first use.
    static var registry: PrometheusCollectorRegistry {
        state.withLock { state in
            if let registry = state { return registry }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            state = registry
            return registry
        }
    }
}
