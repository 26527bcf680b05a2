import HummingbirdCore
import Logging
import NIOCore

/// A server child channel whose connections start with a ``ConnectionGuardHandler`` in front of
/// everything `base` sets up (TLS, the HTTP codec): the cap and the deadlines apply before a byte
/// is decrypted or parsed.
struct GuardedServerChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let policy: ConnectionPolicy

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(policy: policy))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
