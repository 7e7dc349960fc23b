import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1.1 with the WebSocket upgrade `router`'s `ws` routes take (`/v1/realtime`), whose
    /// connections also end on shutdown before their first request. hummingbird-websocket puts
    /// HTTP's own idle handling in place only once a connection's first request has come, so a
    /// browser's preconnected socket would hold a graceful shutdown open for ever.
    static func realtime(_ router: Router<ServerContext>) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            ClosingUnusedOnShutdown(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: .init()))
        }
    }
}

/// A server channel that closes a connection on which nothing has been read when the server
/// shuts down, and otherwise leaves the connection to `inner`.
struct ClosingUnusedOnShutdown<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(UnusedConnectionCloser())
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Inner.Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// Closes its connection on a shutdown's quiesce event if no byte has come in yet; passes
/// everything on otherwise.
final class UnusedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private var used = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        used = true
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !used { return context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }
}
