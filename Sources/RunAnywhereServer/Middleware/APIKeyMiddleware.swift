import Hummingbird

/// Lets through only requests with `Authorization: Bearer <key>` to the API (`/v1/…`, `/api/…`,
/// `/metrics`, `/openapi.json`). `/health` stays open so that supervisors can probe the server,
/// and so do the web app's own files, which hold no data: the page asks for the key.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    /// Whether `path` is part of the API, which needs the key.
    static func isGuarded(_ path: String) -> Bool {
        path == "/metrics" || path == "/openapi.json" || ["/v1", "/api"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !Self.isGuarded(request.uri.path) || request.method == .options { return try await next(request, context) }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "), constantTimeEqual(String(header.dropFirst(7)), key) else {
            throw OpenAIError(.unauthorized, "A valid API key is needed: send 'Authorization: Bearer <key>'", code: "invalid_api_key")
        }
        return try await next(request, context)
    }

    /// Compares without stopping at the first difference, so timing reveals nothing of the key.
    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
