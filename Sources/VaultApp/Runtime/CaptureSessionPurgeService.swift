import Foundation
public import Logging
public import ServiceLifecycle
public import Vault

/// Deletes ended capture sessions past `capture.sessionRetentionHours` (``CaptureSessionPurge``),
/// in the background of `vault serve`: a pass at start and then hourly, until graceful shutdown.
/// Several servers may run it at once: a session is deleted once, by whichever comes first.
public struct CaptureSessionPurgeService: Service {
    /// The purge each pass runs.
    public let purge: CaptureSessionPurge
    /// Where passes that deleted something, and failed passes, are reported.
    public let logger: Logger

    /// Creates the service.
    public init(purge: CaptureSessionPurge, logger: Logger) {
        self.purge = purge
        self.logger = logger
    }

    /// Runs passes until graceful shutdown or cancellation.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let purged = try await purge.run()
                if purged > 0 { logger.info("deleted ended capture sessions past their retention", metadata: ["count": "\(purged)"]) }
            } catch {
                logger.warning("capture session purge failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
