import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 for download tests: files with byte ranges (and
/// `If-Range`), a connection cut halfway through the first response, slow responses, status
/// codes, redirects and routes that need a token. It records every request it gets, with its
/// method, body and `Authorization` header.
package final class TestHTTPServer: Sendable {
    /// What a path answers.
    package indirect enum Route: Sendable {
        /// The bytes; `cutFirstAfter`: the first response stops after that many body bytes and
        /// the connection closes; `delayPerChunk`: a pause between 16 KiB chunks.
        case file(Data, etag: String? = "\"v1\"", cutFirstAfter: Int? = nil, delayPerChunk: TimeAmount? = nil)
        case status(Int)
        case redirect(String)
        /// Headers announcing `length` bytes, then a closed connection.
        case claims(length: Int64)
        /// 401 unless the request's `Authorization` header is `authorization`; then `route`.
        case authorized(String, Route)
    }

    /// A request as the server saw it.
    package struct Request: Sendable {
        package let path: String
        package let range: String?
        /// "GET", "POST", …
        package var method = "GET"
        /// The request's body (a POST's payload).
        package var body = Data()
        /// Its `Authorization` header, if it had one.
        package var authorization: String?
    }

    private struct State {
        var routes: [String: Route]
        var requests: [Request] = []
        var cut: Set<String> = []
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: Mutex<State>
    /// The port it listens on.
    package let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, routes: [String: Route], port: Int) {
        self.group = group
        self.channel = channel
        self.state = Mutex(State(routes: routes))
        self.port = port
    }

    /// Starts a server with `routes` on a free port of 127.0.0.1.
    package static func start(routes: [String: Route]) async throws -> TestHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TestHTTPServer(group: group, channel: channel, routes: routes, port: channel.localAddress?.port ?? 0)
        box.server.withLock { $0 = server }
        return server
    }

    /// `http://127.0.0.1:PORT/path`.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Every request so far.
    package var requests: [Request] { state.withLock { $0.requests } }

    /// Stops the server.
    package func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }

    fileprivate func route(for request: Request) -> (Route?, cut: Bool) {
        state.withLock { state in
            state.requests.append(request)
            let route = state.routes[request.path]
            guard case .file(_, _, let cutAfter, _)? = route, cutAfter != nil, !state.cut.contains(request.path) else {
                return (route, false)
            }
            state.cut.insert(request.path)
            return (route, true)
        }
    }
}

private final class ServerBox: Sendable {
    let server = Mutex<TestHTTPServer?>(nil)
}

private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked Sendable: NIO calls a handler only on its channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: ServerBox
    private var head: HTTPRequestHead?
    private var body = Data()

    init(box: ServerBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let buffer): body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head, let server = box.server.withLock({ $0 }) else { return }
            let request = TestHTTPServer.Request(
                path: String(head.uri.split(separator: "?").first ?? ""), range: head.headers.first(name: "range"),
                method: head.method.rawValue, body: body,
                authorization: head.headers.first(name: "authorization")
            )
            let (route, cut) = server.route(for: request)
            respond(context: context, head: head, route: route, cut: cut)
        }
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead, route: TestHTTPServer.Route?, cut: Bool) {
        switch route {
        case .authorized(let expected, let inner):
            respond(
                context: context, head: head, route: head.headers.first(name: "authorization") == expected ? inner : .status(401), cut: cut)
        case nil, .status:
            var code = 404
            if case .status(let status)? = route { code = status }
            writeHead(context, head, status: HTTPResponseStatus(statusCode: code), headers: [("Content-Length", "0")])
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .claims(let length):
            writeHead(context, head, status: .ok, headers: [("Content-Length", "\(length)")])
            context.flush()
            context.close(promise: nil)
        case .redirect(let location):
            writeHead(context, head, status: .found, headers: [("Location", location), ("Content-Length", "0")])
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .file(let data, let etag, let cutAfter, let delay):
            var start = 0
            let ifRange = head.headers.first(name: "if-range")
            if let range = head.headers.first(name: "range"), range.hasPrefix("bytes="), ifRange == nil || ifRange == etag,
                let from = Int(range.dropFirst(6).split(separator: "-").first ?? ""), from < data.count
            {
                start = from
            }
            let body = data.subdata(in: start..<data.count)
            var headers = [("Content-Length", "\(body.count)"), ("Accept-Ranges", "bytes")]
            if let etag { headers.append(("ETag", etag)) }
            if start > 0 { headers.append(("Content-Range", "bytes \(start)-\(data.count - 1)/\(data.count)")) }
            writeHead(context, head, status: start > 0 ? .partialContent : .ok, headers: headers)
            guard head.method != .HEAD else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let limit = cut ? min(cutAfter ?? body.count, body.count) : body.count
            send(body, from: 0, limit: limit, closeAfter: cut, delay: delay, context: NIOLoopBound(context, eventLoop: context.eventLoop))
        }
    }

    private func send(
        _ body: Data, from offset: Int, limit: Int, closeAfter: Bool, delay: TimeAmount?, context bound: NIOLoopBound<ChannelHandlerContext>
    ) {
        let context = bound.value
        guard offset < limit else {
            if closeAfter {
                context.flush()
                context.close(promise: nil)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
            return
        }
        let end = min(offset + 16_384, limit)
        var buffer = context.channel.allocator.buffer(capacity: end - offset)
        buffer.writeBytes(body[offset..<end])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        if let delay {
            context.eventLoop.scheduleTask(in: delay) { [self] in
                self.send(body, from: end, limit: limit, closeAfter: closeAfter, delay: delay, context: bound)
            }
        } else {
            send(body, from: end, limit: limit, closeAfter: closeAfter, delay: delay, context: bound)
        }
    }

    private func writeHead(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, status: HTTPResponseStatus, headers: [(String, String)]
    ) {
        let head = HTTPResponseHead(version: request.version, status: status, headers: HTTPHeaders(headers))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }
}
