import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// What every route of the server gets with its request: Hummingbird's, with the WebSocket
/// upgrade `/v1/realtime` needs, and the connection the request came on, so that a request whose
/// client has hung up is cancelled (``ClientHangUpMiddleware``).
package struct ServerContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let webSocket: WebSocketHandlerReference<Self>
    /// The connection the request came on.
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
