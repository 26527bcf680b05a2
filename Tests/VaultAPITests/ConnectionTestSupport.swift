import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

extension APIFixture {
    /// Runs `body` with the real application (`buildApplication`, the same listener as `vault
    /// serve`) on a loopback port, then shuts it down gracefully.
    func serving(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await serving(waitingForMetrics: false) { port, _ in try await body(port) }
    }

    /// ``serving(_:)`` with the port of the metrics listener too.
    func servingWithMetrics(_ body: @escaping @Sendable (_ api: Int, _ metrics: Int) async throws -> Void) async throws {
        try await serving(waitingForMetrics: true, body)
    }

    private func serving(waitingForMetrics: Bool, _ body: @escaping @Sendable (Int, Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let (metricsPorts, metricsContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(
            runtime: runtime, logger: logger, onServerRunning: { port in continuation.yield(port) },
            onMetricsRunning: { port in metricsContinuation.yield(port) })
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return }
            var metricsPort = 0
            if waitingForMetrics {
                var metricsIterator = metricsPorts.makeAsyncIterator()
                guard let bound = await metricsIterator.next() else { return }
                metricsPort = bound
            }
            do {
                try await body(port, metricsPort)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// A bare TCP connection to the server, for sending what no well-behaved client would: what the
/// server sent back is collected, and whether it closed the connection is recorded.
final class RawConnection: Sendable {
    /// Collects what arrives; the end of the server's stream is noted without closing this side
    /// (remote half-closure is allowed), so the client can go on writing as a real one would.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex<[UInt8]>([])
        let closed = Mutex(false)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .some(.inputClosed) = event as? ChannelEvent { closed.withLock { $0 = true } }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.withLock { $0 = true }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    let channel: any Channel
    private let collector: Collector

    /// Connects to `127.0.0.1:port`, from `source` (another loopback address, `127.0.0.2`, is another client).
    static func open(port: Int, from source: String = "127.0.0.1") async throws -> RawConnection {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) } }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, collector: collector)
    }

    private init(channel: any Channel, collector: Collector) {
        self.channel = channel
        self.collector = collector
    }

    /// Writes `text`; returns once it is handed to the kernel.
    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Writes `bytes` and reports whether they were all handed to the kernel within `limit` (a
    /// server that stops reading leaves them stuck).
    func send(_ bytes: ByteBuffer, within limit: Duration) async -> Bool {
        let done = Mutex(false)
        channel.writeAndFlush(bytes).whenComplete { _ in done.withLock { $0 = true } }
        return await Self.poll(within: limit) { done.withLock { $0 } }
    }

    /// Whether the server has closed the connection (or it broke).
    var isClosed: Bool { collector.closed.withLock { $0 } }

    /// Everything received so far, as text.
    var received: String { String(decoding: collector.received.withLock { $0 }, as: UTF8.self) }

    /// Waits until the server closes the connection; false if it is still open after `limit`.
    func waitForClose(within limit: Duration) async -> Bool {
        await Self.poll(within: limit) { self.isClosed }
    }

    /// Waits until something was received or the connection closed; false if neither happened within `limit`.
    func waitForAnswer(within limit: Duration) async -> Bool {
        await Self.poll(within: limit) { self.isClosed || !self.received.isEmpty }
    }

    /// Closes from this side.
    func close() async {
        try? await channel.close()
    }

    /// Checks `condition` every 20 ms until it holds or `limit` has passed.
    static func poll(within limit: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
