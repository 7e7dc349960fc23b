import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

extension HTTPServerBuilder {
    /// HTTP/1.1 with the WebSocket upgrade `router`'s `ws` routes take (`/v1/realtime`). A
    /// connection left idle for `idleTimeout` between requests is closed, as is one whose first
    /// request has not come by then (with a 408); a first request that is not HTTP gets a 400; a
    /// connection on which nothing came yet ends when the server shuts down. hummingbird-websocket
    /// puts HTTP's own idle and error handling in place only once a connection's first request has
    /// been read, so without these a browser's preconnected socket would hold a graceful shutdown
    /// open for ever, a malformed first request would leave its client waiting for an answer that
    /// never comes, and every connection a client leaves open would hold one of the server's file
    /// descriptors for as long as the server runs.
    /// A WebSocket frame may be as large as a whole message, `maxMessageSize`: clients send an
    /// event as one frame (the `openai` client's second of audio is a 64 KB frame), and the
    /// library's default of 16 KiB a frame would close their connection (1009).
    static func guarded(_ router: Router<ServerContext>, idleTimeout: Duration, maxMessageSize: Int, hangUps: ClientHangUps)
        -> HTTPServerBuilder
    {
        let webSocketResponder = router.buildResponder()
        let timeout = TimeAmount(idleTimeout)
        return HTTPServerBuilder { responder in
            GuardedFirstRequest(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: timeout), ws: .init(maxFrameSize: maxMessageSize))),
                timeout: timeout, hangUps: hangUps)
        }
    }
}

/// A server channel that guards a connection until its first request has been read (see
/// ``FirstRequestGuard`` and ``UnusedConnectionCloser``), then leaves it to `inner`; all along,
/// ``HangUpDetector`` tells `hangUps` when the client leaves.
struct GuardedFirstRequest<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    /// How long the first request's head may take to come.
    let timeout: TimeAmount
    /// Told when the connection's client hangs up.
    let hangUps: ClientHangUps

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(HangUpDetector(hangUps: hangUps), UnusedConnectionCloser())
        }.flatMap { inner.setup(channel: channel, logger: logger) }.flatMapThrowing { value in
            // Right after the request decoder, the marker and then the guard, which sees the
            // decoder's parse errors through the marker.
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(FirstRequestGuard(timeout: timeout), position: .after(decoder))
            try operations.addHandler(ConnectionCloseMarker(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Inner.Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// Says in each request head whether the connection ends after it, and in its response: an
/// HTTP/1.0 request without `keep-alive` (ApacheBench's, a health check's) and one that says
/// `close` in any letter case get `Connection: close`, and an HTTP/1.0 request with `keep-alive`
/// gets `Connection: keep-alive` in its response (which an HTTP/1.0 client otherwise reads as the
/// end of the connection). Hummingbird reads requests as HTTP types, which have no version, and
/// ends a connection after a response only where that header is exactly `close`: an HTTP/1.0
/// client would wait for a close that never comes. Requests read ahead of their answers are
/// answered in order, each response with its own request's word. It leaves at a WebSocket upgrade request,
/// after which what comes is no longer HTTP.
final class ConnectionCloseMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    /// The `Connection` word of each request read and not yet answered, oldest first (nil: none).
    private var pending: [String?] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        if head.headers[canonicalForm: "Upgrade"].contains(where: { $0.lowercased() == "websocket" }) {
            context.fireChannelRead(data)
            return context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        guard head.isKeepAlive else {
            pending.append("close")
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            return context.fireChannelRead(wrapInboundOut(.head(head)))
        }
        pending.append(head.version == .http1_0 ? "keep-alive" : nil)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An informational response (100 Continue) comes before its request's final one.
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200, !pending.isEmpty else {
            return context.write(data, promise: promise)
        }
        guard let word = pending.removeFirst() else { return context.write(data, promise: promise) }
        head.headers.replaceOrAdd(name: "Connection", value: word)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
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
/// HTTP (the decoder's `HTTPParserError`), and with 408 when its head has not come within
/// `timeout` of the connection opening; removes itself once that head has been read, after which
/// Hummingbird's HTTP handling refuses malformed requests and closes idle connections itself.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let seconds = timeout.nanoseconds / 1_000_000_000
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            refuse(
                context: context,
                APIError(
                    .requestTimeout, "No request came within \(seconds) s of the connection opening; it is closed.",
                    code: "request_timeout"))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isHead = if case .head = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if isHead { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        refuse(context: context, APIError(.badRequest, "The request is not valid HTTP/1.1 (\(error)).", code: "malformed_request"))
    }

    /// Answers `error` in the server's own (OpenAI's) error shape, then closes the connection.
    private func refuse(context: ChannelHandlerContext, _ error: APIError) {
        timer?.cancel()
        timer = nil
        let body = ByteBuffer(bytes: (try? JSONEncoder.server.encode(ErrorShape.openAI.body(error))) ?? Data())
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", String(body.readableBytes)), ("Connection", "close"),
        ])
        let status = HTTPResponseStatus(statusCode: error.status.code)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // Ends the upgrade handler's wait for a request quietly (it closes the connection); the
        // connection is closed here too, whoever comes first.
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }
}
