/// The HTTP listener: address, limits, timeouts and TLS (`server` in the configuration).
public struct HTTPServerSettings: Sendable, Equatable {
    /// Interface to bind.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port = 8080
    /// Largest accepted request body; larger ones get 413.
    public var maxBodyBytes = 1_048_576
    /// How long one request may take.
    public var requestTimeoutSeconds = 30
    /// How long a client may take to send a request's head once its first byte arrived.
    public var headerReadTimeoutSeconds = 10
    /// How long a client may take to send a request's body once its head arrived.
    public var bodyReadTimeoutSeconds = 10
    /// How long a connection may sit with no request in progress before it is closed.
    public var idleTimeoutSeconds = 10
    /// Open connections at most; further ones get a 503 and are closed at once.
    public var maxConnections = 4096
    /// Open connections one client address (IPv6: one /64) may hold at once; further ones from it
    /// get a 429 and are closed at once. Well below `maxConnections`, so one client cannot take
    /// every slot by opening connections and sending nothing.
    public var maxConnectionsPerAddress = 64
    /// Text searches (`q` on transactions and cards) one merchant may run at once on this server;
    /// further ones get a 429 at once.
    public var maxSearchesPerMerchant = 2
    /// Transactions one `q` search examines per request; a page whose window is used up before it
    /// fills ends early, its `nextCursor` continuing the search.
    public var searchScanLimit = 10_000
    /// Failed authentications one client address may make before it gets 429s.
    public var failedAuthLimit = 20
    /// Seconds over which a client address's failed-authentication budget refills completely.
    public var failedAuthWindowSeconds = 60
    /// Minutes a capture session takes its card after it is created.
    public var captureSessionMinutes = 15
    /// HTTPS certificate and key; nil serves plain HTTP.
    public var tls: TLS?
    /// Whether plain HTTP may be served on an address other than loopback.
    public var allowPlaintext = false

    /// The listener's certificate and private key, PEM files.
    public struct TLS: Sendable, Equatable {
        /// The certificate chain (leaf first), PEM.
        public var certificateFile: String
        /// The private key, PEM.
        public var keyFile: String

        /// Both files.
        public init(certificateFile: String, keyFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    /// The built-in defaults.
    public init() {}
}

/// Per-API-key request rate limiting, a token bucket (`rateLimit` in the configuration).
public struct RateLimitSettings: Sendable, Equatable {
    /// Sustained requests per second per API key; 0 turns limiting off.
    public var requestsPerSecond: Int
    /// Requests a key may send at once before the sustained rate applies.
    public var burst: Int

    /// The limit; by default 1000 a second with bursts of 2000.
    public init(requestsPerSecond: Int = 1000, burst: Int = 2000) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}
