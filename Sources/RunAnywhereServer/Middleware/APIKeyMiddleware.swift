import Foundation
import Hummingbird
import RunAnywhere

/// Lets through only requests with `Authorization: Bearer <key>` (or `x-api-key: <key>`, as
/// Anthropic's clients may send it, or, for a browser's WebSocket, the subprotocol
/// `openai-insecure-api-key.<key>`). It guards each group of the API's routes (every route but
/// `/health`, which supervisors probe, and the web app's own files, which hold no data: the page
/// asks for the key), inside the group's error shape.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options { return try await next(request, context) }
        let apiKeyHeader = request.headers.first { $0.name.canonicalName == "x-api-key" }.map { ConstantTime.equal($0.value, key) } ?? false
        guard ConstantTime.isBearer(request.headers[.authorization], key: key) || apiKeyHeader || Self.subprotocolKey(request, equals: key)
        else {
            throw APIError(
                .unauthorized, "A valid API key is needed: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
                code: "invalid_api_key")
        }
        return try await next(request, context)
    }

    /// Whether a WebSocket upgrade offers the key as the subprotocol
    /// `openai-insecure-api-key.<key>`: browsers cannot set headers on a WebSocket, so OpenAI's
    /// Realtime API takes the key this way.
    static func subprotocolKey(_ request: Request, equals key: String) -> Bool {
        let prefix = "openai-insecure-api-key."
        return request.offeredSubprotocols.contains { name in
            name.hasPrefix(prefix) && ConstantTime.equal(String(name.dropFirst(prefix.count)), key)
        }
    }
}

extension Request {
    /// The WebSocket subprotocols the request offers (`Sec-WebSocket-Protocol`, comma-separated).
    var offeredSubprotocols: [String] {
        headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
