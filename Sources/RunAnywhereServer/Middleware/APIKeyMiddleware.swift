import Foundation
import Hummingbird
import RunAnywhere

/// Lets through only requests with a key of the server's (``KeyRing``) whose scopes allow the
/// route (``KeyScope/required(method:path:)``) and whose rate limit is not spent (429), once the
/// server has any key: its own `--api-key`
/// or one made with `runanywhere keys create`. The key comes as `Authorization: Bearer <key>`, or
/// `x-api-key: <key>` as Anthropic's clients send it, or, for a browser's WebSocket, the
/// subprotocol `openai-insecure-api-key.<key>`. A server with no key at all lets every request
/// through (it listens on loopback only: ``ServerConfiguration/validate(keysExist:)``).
///
/// It guards each group of the API's routes (every route but `/health`, which supervisors probe,
/// and the web app's own files, which hold no data: the page asks for the key), inside the
/// group's error shape; each key's requests are counted in the server's metrics, and its handler
/// runs for the key's account (``RequestAccount``).
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: KeyRing
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options { return try await next(request, context) }
        guard try await keys.required() else { return try await next(request, context) }
        guard let presented = Self.presentedKey(request), let holder = try await keys.holder(of: presented) else {
            throw APIError(
                .unauthorized, "A valid API key is needed: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
                code: "invalid_api_key")
        }
        // The route's template, not the request's path: `//api/keys` or `/api/settings/` reach
        // the same routes as their plain spellings and must need the same scope.
        let scope = KeyScope.required(method: request.method, path: context.endpointPath ?? request.uri.path)
        guard holder.allows(scope) else {
            throw APIError(
                .forbidden,
                "The key '\(holder.name)' may not do this: \(request.method) \(request.uri.path) needs the scope \(scope.rawValue)",
                code: "insufficient_scope")
        }
        if let wait = try await keys.admit(holder) {
            metrics.keyLimited(holder.name)
            throw APIError(
                .tooManyRequests,
                "The key '\(holder.name)' may make \(holder.requestsPerMinute ?? 0) requests a minute; the next in \(Int(wait.rounded(.up))) s",
                code: "rate_limited")
        }
        metrics.keyUsed(holder.name)
        return try await RequestAccount.$current.withValue(holder.account) {
            try await RequestAccount.$holder.withValue(holder) { try await next(request, context) }
        }
    }

    /// The key a request presents, however it presents it.
    static func presentedKey(_ request: Request) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") { return String(header.dropFirst(7)) }
        if let header = request.headers.first(where: { $0.name.canonicalName == "x-api-key" }) { return header.value }
        let prefix = "openai-insecure-api-key."
        return request.offeredSubprotocols.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

extension Request {
    /// The WebSocket subprotocols the request offers (`Sec-WebSocket-Protocol`, comma-separated).
    var offeredSubprotocols: [String] {
        headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
