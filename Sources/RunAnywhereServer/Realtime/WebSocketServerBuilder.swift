import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

extension HTTPServerBuilder {
    /// HTTP/1.1 with the WebSocket upgrade `router`'s `ws` routes take (`/v1/realtime`), whose
    /// connections also end on shutdown before their first request, and whose first request, when
    /// it is not HTTP, gets a 400. hummingbird-websocket puts HTTP's own idle and error handling in
    /// place only once a connection's first request has been read, so a browser's preconnected
    /// socket would hold a graceful shutdown open for ever, and a malformed first request would
    /// leave its client waiting for an answer that never comes.
    static func realtime(_ router: Router<ServerContext>) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedFirstRequest(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: .init()))
        }
    }
}

/// A server channel that, until a connection's first request has been read, closes it when the
/// server shuts down and answers a request that is not HTTP with 400; otherwise it leaves the
/// connection to `inner`.
struct GuardedFirstRequest<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(UnusedConnectionCloser())
        }.flatMap { inner.setup(channel: channel, logger: logger) }.flatMapThrowing { value in
            // Right after the request decoder, so that its parse errors come here first.
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(MalformedFirstRequestRefuser(), position: .after(decoder))
            return value
        }
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

/// Answers a connection's first request with 400 and closes the connection when the request is not
/// HTTP (the decoder's `HTTPParserError`); removes itself once that request's head has been read,
/// after which Hummingbird's HTTP handling refuses malformed requests itself.
final class MalformedFirstRequestRefuser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isHead = if case .head = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if isHead { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        // The parser's error in words (such as "invalid character in header"): nothing to escape.
        let reason = String(describing: error).filter { $0.isLetter || $0.isNumber || $0 == " " }
        var body = context.channel.allocator.buffer(capacity: 160)
        body.writeString(
            #"{"error":{"message":"The request is not valid HTTP/1.1 (\#(reason)).","type":"invalid_request_error","code":"malformed_request"}}"#
        )
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", String(body.readableBytes)), ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // Ends the upgrade handler's wait for a request quietly (it closes the connection); the
        // connection is closed here too, whoever comes first.
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }
}
