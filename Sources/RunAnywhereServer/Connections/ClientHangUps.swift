import Hummingbird
import NIOCore
import Synchronization

/// Cancels a request whose client has hung up (closed its side of the connection). An answer that
/// is not streamed (a chat completion, a message, an image) would otherwise be made to the end for
/// nobody, holding its model's slot while the requests queued behind it wait; a streamed one would
/// run until its next write, which may be long in coming (a long prompt read before the first token,
/// a large tensor quantized before the next progress line), so its body is watched while it is
/// written too. The cancellation reaches the engine as a client's own does. (Go's HTTP server and
/// llama.cpp's do the same: a client that closes its side of the connection has left.)
struct ClientHangUpMiddleware: RouterMiddleware {
    let hangUps: ClientHangUps

    func handle(
        _ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        let channel = context.channel
        var response = try await hangUps.watching(channel) { try await next(request, context) }
        // A body of unknown length is written as it is made, after this function has returned.
        guard response.body.contentLength == nil else { return response }
        let body = response.body
        response.body = ResponseBody { [hangUps] writer in
            try await hangUps.watching(channel) { try await body.write(writer) }
        }
        return response
    }
}

/// The requests under way on each connection, each with what cancels it once the client hangs
/// up: closes its side of the connection (``HangUpDetector`` tells). A connection is kept here
/// only while a request runs on it or once its client has hung up, until it closes.
final class ClientHangUps: Sendable {
    /// A request being watched, for ``forget(_:)``.
    struct Watch {
        fileprivate let connection: ObjectIdentifier
        fileprivate let request: Int
    }

    private struct Connection {
        var hungUp = false
        var nextRequest = 0
        var requests: [Int: @Sendable () -> Void] = [:]
    }

    private let connections = Mutex<[ObjectIdentifier: Connection]>([:])

    /// Runs `work`, cancelling the task it runs in if the client of `channel` hangs up meanwhile.
    /// The task is cancelled only while `work` runs: it is forgotten, under the lock the
    /// cancellation takes, before this function returns.
    func watching<Result>(_ channel: any Channel, _ work: () async throws -> Result) async throws -> Result {
        let watch = withUnsafeCurrentTask { task -> Watch? in
            guard let task else { return nil }
            nonisolated(unsafe) let running = task
            return self.watch(channel) { running.cancel() }
        }
        defer { watch.map(forget) }
        return try await work()
    }

    /// Calls `cancel` when the client of `channel` hangs up (at once if it has), unless the
    /// request is forgotten first; `cancel` runs under the lock ``forget(_:)`` takes, and must
    /// not come back here.
    func watch(_ channel: any Channel, cancel: @escaping @Sendable () -> Void) -> Watch {
        let key = ObjectIdentifier(channel)
        return connections.withLock { connections in
            var connection = connections[key] ?? Connection()
            let request = connection.nextRequest
            connection.nextRequest += 1
            if connection.hungUp {
                cancel()
            } else {
                connection.requests[request] = cancel
            }
            connections[key] = connection
            return Watch(connection: key, request: request)
        }
    }

    /// Stops watching a request that has ended.
    func forget(_ watch: Watch) {
        connections.withLock { connections in
            guard var connection = connections[watch.connection] else { return }
            connection.requests[watch.request] = nil
            connections[watch.connection] = connection.requests.isEmpty && !connection.hungUp ? nil : connection
        }
    }

    /// The client of `channel` has hung up: its requests are cancelled, and so is any that
    /// starts on it from now on.
    func hungUp(_ channel: any Channel) {
        connections.withLock { connections in
            var connection = connections[ObjectIdentifier(channel)] ?? Connection()
            connection.hungUp = true
            for cancel in connection.requests.values { cancel() }
            connection.requests = [:]
            connections[ObjectIdentifier(channel)] = connection
        }
    }

    /// `channel` has closed: nothing more can run on it.
    func closed(_ channel: any Channel) {
        hungUp(channel)
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// Tells ``ClientHangUps`` when a connection's client closes its side of it (the server allows
/// half-closed connections, so a client's leaving shows as the end of its input) and when the
/// connection closes. First in the connection's pipeline; passes everything on.
final class HangUpDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let hangUps: ClientHangUps

    init(hangUps: ClientHangUps) { self.hangUps = hangUps }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent { hangUps.hungUp(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        hangUps.closed(context.channel)
        context.fireChannelInactive()
    }
}
