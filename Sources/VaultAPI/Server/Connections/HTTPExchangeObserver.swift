import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits above the HTTP decoder: tells the connection's ``ConnectionGuardHandler`` when request
/// heads and ends are read and responses written, and closes the connection after an early answer.
///
/// An answer is early when it starts before its request was read to the end (a 401 or 413 decided
/// from the head, a malformed request): the rest of the stream is body nobody will read, so the
/// response says `Connection: close`, the output is closed once it is flushed, and the guard
/// discards the remaining input until the client closes or the linger timeout passes.
final class HTTPExchangeObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var guardHandler: ConnectionGuardHandler?
    private var responseIsEarly = false

    func handlerAdded(context: ChannelHandlerContext) {
        guardHandler = try? context.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardHandler = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: guardHandler?.headRead()
        case .body: break
        case .end: guardHandler?.endRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            responseIsEarly = guardHandler?.nextResponseIsEarly ?? false
            guard responseIsEarly, head.status.kind != .informational else {
                context.write(data, promise: promise)
                return
            }
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            let early = responseIsEarly
            responseIsEarly = false
            if early {
                context.flush()
                context.close(mode: .output, promise: nil)
            }
            guardHandler?.responseEnded(early: early)
        }
    }
}
