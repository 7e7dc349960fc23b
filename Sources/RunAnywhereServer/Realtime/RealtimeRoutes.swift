import Foundation
import Hummingbird
import HummingbirdWebSocket
import RunAnywhere

/// `GET /v1/realtime?model=…` upgraded to a WebSocket: OpenAI's Realtime API, so that the
/// official clients' realtime connections work unchanged. `model` names a language model
/// (OpenAI's `gpt-realtime…` names, or none, mean the default one); each connection is one
/// ``RealtimeSession`` with its own conversation, on the runtime every route shares. The API
/// key and origin checks of every `/v1` route apply to the upgrade request; an upgrade they (or
/// an unknown model) refuse is answered 400 by the WebSocket library, while the same request
/// without the upgrade gets the error in full.
struct RealtimeRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: some RouterMethods<ServerContext>) {
        router.ws("v1/realtime") { request, _ in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw APIError(.upgradeRequired, "/v1/realtime is a WebSocket: connect with 'Upgrade: websocket'", code: "upgrade_required")
            }
            _ = try model(request)  // an unknown model is refused before the upgrade
            // A browser offers subprotocols (the API's, and its key): the handshake names the one taken.
            return .upgrade(request.offeredSubprotocols.contains("realtime") ? [.secWebSocketProtocol: "realtime"] : [:])
        } onUpgrade: { inbound, outbound, context in
            let session = RealtimeSession(
                runtime: runtime, model: try model(context.request), threads: configuration.threads,
                maxAudioDuration: configuration.maxAudioDuration, logger: configuration.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in session.events { try await outbound.write(.text(event.text)) }
                }
                do {
                    for try await message in inbound.messages(maxSize: configuration.maxBodySize) {
                        switch message {
                        case .text(let text): await session.handle(text)
                        case .binary: await session.refuseBinary()
                        }
                    }
                } catch {
                    context.logger.debug("A realtime connection ended", metadata: ["error": "\(error)"])
                }
                await session.close()
                try await group.waitForAll()
            }
        }
    }

    /// The language model `?model=` names.
    private func model(_ request: Request) throws -> String {
        guard let name = request.uri.queryParameters.get("model"), !name.isEmpty, !name.hasPrefix("gpt-") else {
            return SDKConstants.Models.defaultModelID
        }
        do {
            return try runtime.model(id: name, category: .language).id
        } catch {
            throw APIError.from(error)
        }
    }
}
