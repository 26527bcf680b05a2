import Metrics
import Payments

/// The gateway metrics of `/metrics`, fed by every adapter the runtime's registry builds:
/// `vault_gateway_requests_total{gateway, operation, outcome}` (a charge is `operation="sale"`)
/// and the histogram `vault_gateway_request_duration_seconds{gateway, operation}`.
struct GatewayMetrics: GatewayCallObserver {
    func gatewayCall(gateway: String, operation: String, outcome: String, duration: Duration) {
        Counter(
            label: VaultMetricNames.gatewayRequests, dimensions: [("gateway", gateway), ("operation", operation), ("outcome", outcome)]
        ).increment()
        Metrics.Timer(
            label: VaultMetricNames.gatewayRequestDuration, dimensions: [("gateway", gateway), ("operation", operation)],
            preferredDisplayUnit: .seconds
        ).record(duration: duration)
    }
}
