/// The metrics listener (`metrics` in the configuration): `/metrics` is served on its own address,
/// never on the API listener, because it counts every merchant's sales, refunds and declines and
/// any client of the API could otherwise read them.
public struct MetricsSettings: Sendable, Equatable {
    /// Whether the metrics listener runs at all.
    public var enabled = true
    /// Interface to bind; loopback by default, so only a scraper on the same host (or a tunnel the
    /// operator sets up) reaches it.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port = 9464

    /// The built-in defaults.
    public init() {}
}
