extension SandboxGateway {
    /// How the sandbox misbehaves, for tests: latency and injected failures.
    public struct Behaviour: Sendable {
        /// Waited before answering every call (zero by default: the charge runner's benchmarks
        /// run against the sandbox).
        public var latency: Duration
        /// Failures consumed one per call, in order, before ``failureRule`` is asked.
        public var failures: [InjectedFailure]
        /// Decides a failure for a call, e.g. only for one reference; `nil` means none.
        public var failureRule: (@Sendable (SandboxCall) -> InjectedFailure?)?
        /// How many transactions (and idempotency keys) a sandbox over its own in-memory ledger
        /// remembers; the oldest are forgotten first, so a long-running process's memory stays
        /// bounded (a database ledger forgets nothing).
        public var retention: Int

        /// Creates a behaviour; the default answers at once, never fails and (in memory) remembers
        /// 100,000 transactions (about 50 MB).
        public init(latency: Duration = .zero, failures: [InjectedFailure] = [],
                    failureRule: (@Sendable (SandboxCall) -> InjectedFailure?)? = nil, retention: Int = 100_000) {
            self.latency = latency
            self.failures = failures
            self.failureRule = failureRule
            self.retention = max(1, retention)
        }
    }

    /// A failure the sandbox can be told to produce.
    public enum InjectedFailure: String, Sendable, Equatable, CaseIterable {
        /// The call never reached the gateway's processing (a 5xx-like answer): nothing is
        /// recorded; the result is a retryable `gateway_unavailable` error.
        case serverError
        /// The client gave up before the gateway saw the request: nothing is recorded, but the
        /// caller cannot know, so the result is in doubt (`timeout`); lookup finds nothing.
        case timeoutBeforeProcessing
        /// The gateway processed the request but the answer was lost: the transaction (and the
        /// idempotency key) is recorded, the result is in doubt (`timeout`); lookup finds it.
        case timeoutAfterProcessing
        /// The gateway processed the request and answered garbage: recorded, result in doubt
        /// (`unreadable_response`); lookup finds it.
        case garbledResponse
    }

    /// What the sandbox is asked to do, as seen by a ``Behaviour/failureRule``.
    public struct SandboxCall: Sendable {
        /// The operation: `sale`, `authorize`, `capture`, `void`, `refund`, `verify`.
        public var operation: String
        /// The request's reference.
        public var reference: String
        /// The request's idempotency key.
        public var idempotencyKey: String
    }
}
