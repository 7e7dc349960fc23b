import Hummingbird

/// Lets through only requests with `Authorization: Bearer <key>`; `/health` stays open so that
/// supervisors can probe the server.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" || request.method == .options { return try await next(request, context) }
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
