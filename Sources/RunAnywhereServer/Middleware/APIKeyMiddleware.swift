import Hummingbird
import RunAnywhere

/// Lets through only requests with `Authorization: Bearer <key>` (or `x-api-key: <key>`, as
/// Anthropic's clients may send it) to the API (`/v1/…`, `/api/…`, `/telemetry…`, `/metrics`,
/// `/openapi.json`). `/health` stays open so that supervisors can probe the server, and so do
/// the web app's own files, which hold no data: the page asks for the key.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    /// Whether `path` is part of the API, which needs the key.
    static func isGuarded(_ path: String) -> Bool {
        path == "/metrics" || path == "/openapi.json" || ["/v1", "/api", "/telemetry"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !Self.isGuarded(request.uri.path) || request.method == .options { return try await next(request, context) }
        let apiKeyHeader = request.headers.first { $0.name.canonicalName == "x-api-key" }.map { ConstantTime.equal($0.value, key) } ?? false
        guard ConstantTime.isBearer(request.headers[.authorization], key: key) || apiKeyHeader else {
            throw OpenAIError(
                .unauthorized, "A valid API key is needed: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
                code: "invalid_api_key")
        }
        return try await next(request, context)
    }
}
